// The verifier page: re-derive a shoe from its seeds and show the commitment, order and coup.
// Query parameters (from the history): server_seed, client_seed, nonce, decks, cut, position,
// commitment and, optionally, rules (a preset name, for the burn and the cut card).

import {
  FairnessError,
  PRESETS,
  commitment,
  parseCut,
  parseDecks,
  parseNonce,
  parseServerSeed,
  playCoup,
  shoeLayout,
  shuffledOrder,
} from "./fair.js";
import { applyStatic, language, LANGUAGES, pickLanguage, setLanguage, t } from "./i18n.js";

const FIELDS = ["server_seed", "client_seed", "nonce", "rules", "decks", "cut", "position"];
const SUIT_NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const SUIT_SYMBOLS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };

const $ = (id) => document.getElementById(id);

function cardElement(card, tag = "span") {
  const element = document.createElement(tag);
  element.className = `card suit-${card[1]}`;
  element.dataset.card = card;
  element.title = `${card[0] === "T" ? "10" : card[0]} of ${SUIT_NAMES[card[1]]}`;
  element.textContent = `${card[0] === "T" ? "10" : card[0]}${SUIT_SYMBOLS[card[1]]}`;
  return element;
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
  $("result").hidden = true;
}

function readForm() {
  const value = (id) => $(id).value;
  const rules = value("rules");
  const preset = rules ? PRESETS[rules] : null;
  if (rules && !preset) throw new FairnessError(`unknown rules ${JSON.stringify(rules)}`);
  const decks = parseDecks(value("decks"));
  if (preset && preset.decks !== decks) {
    throw new FairnessError(`${rules} deals from ${preset.decks} decks, not ${decks}`);
  }
  const positionText = value("position").trim() || "0";
  const position = Number(positionText);
  if (!/^[0-9]+$/.test(positionText) || position >= 52 * decks) {
    throw new FairnessError(`a position is 0 to ${52 * decks - 1}, not ${JSON.stringify(positionText)}`);
  }
  parseServerSeed(value("server_seed"));
  return {
    serverSeed: value("server_seed").trim().toLowerCase(),
    commitment: value("commitment_input").trim().toLowerCase(),
    clientSeed: value("client_seed"),
    nonce: parseNonce(value("nonce")),
    rules,
    preset,
    decks,
    cut: parseCut(value("cut"), 52 * decks),
    position,
  };
}

function renderHand(name, hand) {
  const cards = $(`${name}-cards`);
  cards.replaceChildren(...hand.cards.map((card) => cardElement(card)));
  $(`${name}-score`).textContent = `${hand.scores[0]}:${hand.scores[1]}`;
}

function permalink(input) {
  const params = new URLSearchParams();
  params.set("server_seed", input.serverSeed);
  if (input.commitment) params.set("commitment", input.commitment);
  params.set("client_seed", input.clientSeed);
  params.set("nonce", input.nonce);
  if (input.rules) params.set("rules", input.rules);
  params.set("decks", String(input.decks));
  if (input.cut !== null) params.set("cut", String(input.cut));
  params.set("position", String(input.position));
  return `?${params}`;
}

async function verify() {
  $("error").hidden = true;
  let input;
  try {
    input = readForm();
  } catch (error) {
    showError(error.message);
    return;
  }
  const [commit, order] = await Promise.all([
    commitment(input.serverSeed),
    shuffledOrder(input.serverSeed, input.clientSeed, input.nonce, input.decks, input.cut),
  ]);
  $("commitment").textContent = commit;
  const check = $("commitment-check");
  if (!input.commitment) {
    check.textContent = t("verify.compare");
    check.className = "check";
  } else if (input.commitment === commit) {
    check.textContent = `\u2713 ${t("verify.matches")}`;
    check.className = "check ok";
  } else {
    check.textContent = `\u2717 ${t("verify.no_match", { commitment: input.commitment })}`;
    check.className = "check bad";
  }

  const layout = shoeLayout(order, input.preset);
  const notes = [];
  if (layout.burned) notes.push(t("verify.burned", { card: order[0], last: layout.burned - 1 }));
  if (layout.cutCard !== null) notes.push(t("verify.cut_card", { n: layout.cutCard }));
  if (input.position < layout.burned) notes.push(t("verify.in_burn"));
  if (layout.cutCard !== null && input.position >= layout.cutCard) notes.push(t("verify.after_cut"));
  $("layout").textContent = notes.join(" ");

  let coup = null;
  try {
    coup = playCoup(order.slice(input.position));
  } catch (error) {
    showError(`position ${input.position}: ${error.message}`);
    return;
  }
  $("coup-position").textContent = String(input.position);
  renderHand("player", coup.player);
  renderHand("banker", coup.banker);
  $("coup-winner").textContent = coup.winner === "tie" ? t("marker.tie") : t("result.wins", { winner: t(`spot.${coup.winner}`) });
  $("coup-winner").dataset.winner = coup.winner;

  const items = order.map((card, index) => {
    const item = cardElement(card, "li");
    item.value = index;
    item.dataset.index = String(index);
    if (index < layout.burned) item.classList.add("burned");
    if (index >= input.position && index < input.position + coup.cardsUsed) {
      item.classList.add("in-coup");
    }
    if (layout.cutCard !== null && index >= layout.cutCard) item.classList.add("after-cut");
    return item;
  });
  $("order").replaceChildren(...items);
  $("order-count").textContent = String(order.length);
  const link = permalink(input);
  $("permalink").href = link;
  history.replaceState(null, "", link);
  $("result").hidden = false;
  document.body.dataset.verified = "true";
}

function fillFromQuery() {
  const params = new URLSearchParams(location.search);
  for (const field of FIELDS) {
    if (params.has(field)) $(field).value = params.get(field);
  }
  if (params.has("commitment")) $("commitment_input").value = params.get("commitment");
  return params.has("server_seed");
}

/** The page in the site's language, with the site's language menu. */
async function speak() {
  await setLanguage(pickLanguage());
  applyStatic(document);
  const menu = $("lang");
  for (const [code, info] of Object.entries(LANGUAGES)) {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = info.name;
    menu.append(option);
  }
  menu.value = language();
  menu.addEventListener("change", async () => {
    await setLanguage(menu.value, { remember: true });
    applyStatic(document);
    presets();
    if ($("result").hidden === false) verify().catch((error) => showError(error.message));
  });
}

function presets() {
  const select = $("rules");
  const chosen = select.value;
  for (const option of [...select.options].slice(1)) option.remove();
  for (const name of Object.keys(PRESETS)) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = t("verify.preset", { name, decks: PRESETS[name].decks, shuffle: t(`verify.shuffle_${PRESETS[name].shuffle}`) });
    select.append(option);
  }
  select.value = chosen;
}

async function init() {
  await speak();
  presets();
  const select = $("rules");
  select.addEventListener("change", () => {
    if (PRESETS[select.value]) $("decks").value = String(PRESETS[select.value].decks);
  });
  $("verify-form").addEventListener("submit", (event) => {
    event.preventDefault();
    verify().catch((error) => showError(error.message));
  });
  if (fillFromQuery()) verify().catch((error) => showError(error.message));
  document.body.dataset.ready = "true";
}

init().catch((error) => showError(error.message));
