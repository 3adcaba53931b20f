// Revealing a dealt round on the felt. The round is the server's, settled at DEAL; the page
// only shows it: the cards dealt face down in deal order (P, B, P, B, then third cards) and
// turned one by one (or squeezed by the player), each hand's x:y score, a "Natural 8/9"
// callout, the winning spot lit, WIN/LOSE markers, the chips collected and paid, and sounds.
//
// How: "instant" (a reload, a language change, reduced motion), "fast", "deal" (the
// default pace) or "squeeze" (the player turns the cards: see squeeze.js). At a multiplier
// table the coup's multiplier cards are marked on the cards as they are dealt, and a won
// bet's multiplier is on its marker, in the banner and in the round's sentence.

import { cardElement, score } from "./cards.js";
import { fill, sleep } from "./dom.js";
import { money, signedMoney, t } from "./i18n.js";
import { multipliersOf, showStrip, times } from "./lightning.js";
import { celebrates } from "./profile.js";
import { squeeze } from "./squeeze.js";
import { sounds } from "./sound.js";

const PACE = { deal: { card: 520, flip: 260 }, fast: { card: 110, flip: 60 }, instant: { card: 0, flip: 0 } };

const natural = (cards) => (cards.length >= 2 ? score(cards.slice(0, 2)) : -1);

/** Clear the felt of a shown round: cards, scores, markers, lights, the banner. */
export function clearRound(el) {
  for (const name of ["player", "banker"]) {
    fill(el.querySelector(`[data-cards="${name}"]`));
    el.querySelector(`[data-score="${name}"]`).textContent = "";
    const marker = el.querySelector(`[data-marker="${name}"]`);
    marker.textContent = "";
    delete marker.dataset.result;
  }
  for (const marker of el.querySelectorAll(".bet-marker")) {
    marker.textContent = "";
    delete marker.dataset.result;
  }
  for (const wrap of el.querySelectorAll("[data-paid]")) delete wrap.dataset.paid;
  for (const paid of el.querySelectorAll(".stack.paid")) paid.remove();
  showStrip(el, []);
  delete el.querySelector(".felt").dataset.winner;
  el.querySelector("[data-banner]").hidden = true;
}

/** Show `round` on the felt `el`; resolves when the last card is face up. */
export async function revealRound(el, round, how = "instant") {
  const $ = (selector) => el.querySelector(selector);
  const p = round.player.cards;
  const b = round.banker.cards;
  const pace = PACE[how] || PACE.deal;
  const multipliers = multipliersOf(round);
  clearRound(el);
  // A multiplier table's cards show first, over the hands, and on the cards as they come.
  showStrip(el, round.lightning);
  const place = (name, card, index) => {
    const animate = how !== "instant";
    const down = how !== "instant";
    const extra = `${animate ? "deal-in" : ""} ${index === 2 ? "third" : ""} ${down ? "down" : ""}`;
    const node = cardElement(card, extra, multipliers.get(card));
    node.style.setProperty("--from", name === "player" ? "1" : "-1");
    $(`[data-cards="${name}"]`).append(node);
    if (animate) sounds.card();
    return node;
  };
  const stages = [
    [
      ["player", p[0], 0],
      ["banker", b[0], 0],
      ["player", p[1], 1],
      ["banker", b[1], 1],
    ],
    [...(p[2] ? [["player", p[2], 2]] : []), ...(b[2] ? [["banker", b[2], 2]] : [])],
  ];
  for (const [n, stage] of stages.entries()) {
    if (!stage.length) continue;
    const nodes = [];
    for (const [name, card, index] of stage) {
      nodes.push(place(name, card, index));
      if (how !== "squeeze" && pace.card) {
        await sleep(pace.flip);
        turn(nodes[nodes.length - 1]);
        await sleep(pace.card - pace.flip);
      } else if (how === "squeeze") {
        await sleep(160);
      }
    }
    if (how === "squeeze") await squeeze(el, nodes);
    if (n === 0) {
      for (const side of ["player", "banker"]) {
        const cards = side === "player" ? p : b;
        $(`[data-score="${side}"]`).textContent = String(score(cards.slice(0, 2)));
      }
      const best = Math.max(natural(p), natural(b));
      if (best >= 8) {
        // "Natural 9" shows at once, where the result will be; the rest comes at the end.
        for (const part of ["[data-banner-head]", "[data-banner-multiplier]", "[data-banner-net]", "[data-banner-detail]"]) {
          $(part).textContent = "";
        }
        $("[data-callout]").textContent = t("result.natural", { n: best });
        $("[data-banner]").hidden = false;
        if (pace.card) await sleep(pace.card);
      }
    }
  }
  for (const [name, hand] of [
    ["player", round.player],
    ["banker", round.banker],
  ]) {
    const [x, y] = hand.scores || [score(hand.cards.slice(0, 2)), score(hand.cards)];
    $(`[data-score="${name}"]`).textContent = `${x}:${y}`;
    const marker = $(`[data-marker="${name}"]`);
    const result = round.winner === "tie" ? "tie" : round.winner === name ? "win" : "lose";
    marker.dataset.result = result;
    marker.textContent = t(`marker.${result}`);
  }
  $(".felt").dataset.winner = round.winner;
  markBets(el, round.bets || {}, how !== "instant");
}

/** A round that returns at most its stake is not celebrated where the profile says so. */
function quiet(bets) {
  const all = Object.values(bets);
  const sum = (key) => all.reduce((total, bet) => total + (bet[key] ?? 0), 0);
  return !celebrates(sum("returned"), sum("stake"));
}

function turn(node) {
  node.classList.remove("down");
}

/** WIN/LOSE on each bet, and the chips: a lost stack goes to the dealer, a win is paid. */
function markBets(el, bets, animate) {
  let best = null;
  const hushed = quiet(bets);
  el.querySelector(".felt").toggleAttribute("data-quiet", hushed);
  for (const [name, bet] of Object.entries(bets)) {
    const wrap = el.querySelector(`.wrap-${name}`);
    if (!wrap) continue;
    const marker = wrap.querySelector(".bet-marker");
    marker.dataset.result = bet.result;
    const multiplied = bet.multiplier > 1 ? ` ${times(bet.multiplier)}` : "";
    marker.textContent = bet.result === "win" ? `${t("marker.win")}${multiplied} ${money(bet.returned)}` : t(`marker.${bet.result}`);
    wrap.dataset.paid = bet.result;
    if (bet.result === "win") {
      const stack = wrap.querySelector(".stack");
      const paid = stack.cloneNode(true);
      paid.classList.add("paid");
      stack.after(paid);
    }
    best = bet.result === "win" || best === "win" ? "win" : bet.result === "push" || best === "push" ? "push" : "lose";
  }
  // No win sound for a round that did not return more than it staked (its chips paid show
  // without their animation: css/table.css, [data-quiet]).
  if (animate && best) sounds[hushed && best === "win" ? "push" : best]();
}

/**
 * The result banner: the winner with the scores, a natural's callout, the net of the round
 * and what was paid; on a tie with Player or Banker bets, that they are returned.
 */
// ``role``: whose result the banner tells: the player's bets (a house table, or the
// player of a banked seat), or the banker of a banked seat, who placed none.
export function showBanner(el, round, net, role = "player") {
  const $ = (selector) => el.querySelector(selector);
  const py = round.player.scores ? round.player.scores[1] : score(round.player.cards);
  const by = round.banker.scores ? round.banker.scores[1] : score(round.banker.cards);
  const best = Math.max(natural(round.player.cards), natural(round.banker.cards));
  $("[data-callout]").textContent = best >= 8 ? t("result.natural", { n: best }) : "";
  const scores = { player: py, banker: by };
  $("[data-banner-head]").textContent =
    round.winner === "tie"
      ? t("result.tie_head", { score: py })
      : t("result.wins_by", { winner: t(`spot.${round.winner}`), a: scores[round.winner], b: round.winner === "player" ? by : py });
  const banner = $("[data-banner]");
  // A multiplier table's won bets with their multipliers ("Player won ×9."), under the head.
  $("[data-banner-multiplier]").textContent = Object.entries(round.bets || {})
    .filter(([, bet]) => bet.result === "win" && bet.multiplier > 1)
    .map(([name, bet]) => t("result.multiplied", { bet: t(`bet.${name}`), n: bet.multiplier }))
    .join(" ");
  const netLine = $("[data-banner-net]");
  netLine.textContent = net == null ? "" : signedMoney(net);
  banner.dataset.sign = net > 0 ? "plus" : net < 0 ? "minus" : "zero";
  banner.querySelector("[data-banner-detail]").textContent = detailText(round, role);
  banner.hidden = false;
}

/**
 * The round's end in one sentence, what a screen reader says (the banner, which is no live
 * region, shows it): a natural, the winner with the scores, then what each of the player's
 * bets did with its net ("Banker wins 5 to 3. Your Player bet lost: −$5.00."), or for the
 * banker of a seat the banker's net.
 */
export function resultText(round, net, role = "player") {
  const py = round.player.scores ? round.player.scores[1] : score(round.player.cards);
  const by = round.banker.scores ? round.banker.scores[1] : score(round.banker.cards);
  const best = Math.max(natural(round.player.cards), natural(round.banker.cards));
  const parts = [];
  if (best >= 8) parts.push(`${t("result.natural", { n: best })}.`);
  if (round.winner === "tie") parts.push(t("announce.tie", { score: py }));
  else {
    const [a, b] = round.winner === "player" ? [py, by] : [by, py];
    parts.push(t("announce.wins", { winner: t(`bet.${round.winner}`), a, b }));
  }
  if (role === "player") {
    const said = { win: "announce.bet_won", lose: "announce.bet_lost", push: "announce.bet_push", void: "announce.bet_void" };
    for (const [name, bet] of Object.entries(round.bets || {})) {
      const multiplied = bet.result === "win" && bet.multiplier > 1;
      const key = multiplied ? "announce.bet_won_times" : said[bet.result];
      // A bet's net: what it returned less its stake, and at a multiplier table its fee.
      const net = signedMoney((bet.returned ?? 0) - bet.stake - (bet.fee ?? 0));
      if (key) parts.push(t(key, { bet: t(`bet.${name}`), n: bet.multiplier, net }));
    }
  } else if (net != null) {
    parts.push(t("announce.banker_net", { net: signedMoney(net) }));
  }
  return parts.join(" ");
}

function detailText(round, role) {
  const bets = round.bets || {};
  // On a tie, the Player and Banker bets placed come back: say which.
  const back = ["player", "banker"].filter((kind) => bets[kind]?.result === "push");
  if (role !== "player") return round.winner === "tie" && back.length ? t("result.tie") : "";
  const paid = Object.values(bets).reduce((sum, bet) => sum + (bet.result === "win" ? bet.returned : 0), 0);
  const parts = [];
  if (round.winner === "tie" && back.length) {
    parts.push(t(back.length === 2 ? "result.tie_returned" : `result.tie_returned_${back[0]}`));
  }
  if (paid > 0) parts.push(t("result.paid", { amount: money(paid) }));
  const fees = Object.values(bets).reduce((sum, bet) => sum + (bet.fee ?? 0), 0);
  if (fees > 0) parts.push(t("result.fees", { amount: money(fees) }));
  return parts.join(" ");
}
