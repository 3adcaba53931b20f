// The history (seed 000 "Protokoll", seed 002 "Spilhistorik"): paged rounds, a round's
// detail with its fairness data and a link to the verifier page, and the fairness settings.

import * as api from "./api.js";
import { cardElement } from "./cards.js";
import * as clientSeed from "./clientseed.js";
import { fill, h } from "./dom.js";
import { errorText } from "./errors.js";
import { loginFirst } from "./gate.js";
import fair from "./fair.js";
import { dateTime, money, signedMoney, t } from "./i18n.js";
import { multipliersOf, times } from "./lightning.js";
import { keep, keepFairness } from "./receipts.js";
import { tableName } from "./rulesinfo.js";
import * as store from "./state.js";

const PAGE = 10;

function handCell(hand) {
  if (!hand) return "";
  const [x, y] = hand.scores || ["", ""];
  return h(
    "span",
    { class: "hand-cell" },
    h(
      "span",
      { class: "mini-cards" },
      hand.cards.map((c) => cardElement(c, "mini")),
    ),
    h("span", { class: "score-text", text: `${x}:${y}` }),
  );
}

function betsText(bets) {
  return Object.entries(bets || {})
    .map(([spot, bet]) => `${t(`spot.${spot}`)} ${money(bet.stake)} (${t(`marker.${bet.result}`)})`)
    .join(", ");
}

function fairnessOf(round) {
  const f = round.fairness || round;
  return {
    server_seed: f.server_seed ?? null,
    client_seed: f.client_seed ?? null,
    nonce: f.nonce ?? null,
    cut: f.cut ?? null,
    position: f.position ?? 0,
    commitment: f.commitment ?? null,
  };
}

function decksOf(round, tables) {
  const f = round.fairness || {};
  if (f.decks) return f.decks;
  const tbl = tables.find((x) => x.id === round.table_id);
  return tbl && tbl.rules ? tbl.rules.decks : null;
}

export function verifyLink(round, tables) {
  const f = fairnessOf(round);
  const params = new URLSearchParams();
  // The rule set tells the verifier about the burn and the cut card (a Mini shoe).
  const rules = fair.PRESETS[round.rules] ? round.rules : null;
  for (const [key, value] of Object.entries({ ...f, rules, decks: decksOf(round, tables) })) {
    if (value !== null && value !== undefined) params.set(key, String(value));
  }
  return `verify.html?${params}`;
}

/** A bet of the round in words: its stake, result and return (at a multiplier table its fee
 * and a won bet's multiplier too). */
function betLine(bet) {
  const line = t("history.bet_line", { stake: money(bet.stake), result: t(`marker.${bet.result}`), returned: money(bet.returned) });
  const fee = bet.fee ? ` \u00b7 ${t("history.bet_fee", { fee: money(bet.fee) })}` : "";
  return `${line}${fee}${bet.multiplier > 1 ? ` \u00b7 ${times(bet.multiplier)}` : ""}`;
}

function detail(round, tables) {
  const f = fairnessOf(round);
  const row = (label, value, cls = "") => h("div", { class: `kv ${cls}` }, h("dt", { text: label }), h("dd", { text: value ?? "\u2013" }));
  const tbl = tables.find((x) => x.id === round.table_id);
  const lightning = round.lightning || [];
  const multipliers = multipliersOf(round);
  return h(
    "section",
    { class: "panel round-detail", id: "round-detail", "aria-labelledby": "detail-title", tabindex: "-1" },
    h("h2", { id: "detail-title", text: t("history.detail_title", { id: round.id }) }),
    h(
      "div",
      { class: "detail-hands" },
      ["player", "banker"].map((side) =>
        h(
          "div",
          { class: `detail-hand ${round.winner === side ? "won" : ""}` },
          h("h3", { text: t(`spot.${side}`) }),
          h(
            "div",
            { class: "cards" },
            round[side].cards.map((c) => cardElement(c, "", multipliers.get(c))),
          ),
          h("p", { class: "score-text", text: `${round[side].scores[0]}:${round[side].scores[1]}` }),
        ),
      ),
    ),
    h(
      "dl",
      { class: "kvs" },
      row(t("history.time"), dateTime(round.time || round.created_at)),
      row(t("history.table"), tbl ? tableName(tbl) : round.table_id),
      row(t("history.mode"), t(`mode.${round.mode}`)),
      round.banked ? row(t("banked.message"), t(`history.as_${round.role}`)) : null,
      round.banked ? row(t("banked.opponent"), round.banked.opponent) : null,
      round.banked ? row(t("banked.fee"), money(round.banked.fee)) : null,
      round.banked ? row(t("banked.last_round"), signedMoney(round.banked.net)) : null,
      row(t("history.winner"), t(`spot.${round.winner}`)),
      lightning.length
        ? h(
            "div",
            { class: "kv", "data-lightning-row": "" },
            h("dt", { text: t("history.lightning") }),
            h(
              "dd",
              { class: "lightning-line" },
              lightning.map((one) =>
                h(
                  "span",
                  { class: "lightning-item" },
                  cardElement(one.card, "mini", one.multiplier),
                  h("span", { class: "lightning-times", "aria-hidden": "true", text: times(one.multiplier) }),
                ),
              ),
            ),
          )
        : null,
      Object.entries(round.bets || {}).map(([spot, bet]) => row(t(`spot.${spot}`), betLine(bet))),
      round.fee ? row(t("history.fee"), money(round.fee)) : null,
      row(t("meter.win"), money(round.win)),
      round.balance_before != null ? row(t("history.balance_before"), money(round.balance_before)) : null,
      row(t("history.balance_after"), money(round.balance_after)),
      round.void_reason ? row(t("history.void"), round.void_reason, "void") : null,
    ),
    h("h3", { text: t("fair.title") }),
    h(
      "dl",
      { class: "kvs mono" },
      row(t("fair.commitment"), f.commitment),
      row(t("fair.server_seed"), f.server_seed ?? t("fair.not_revealed")),
      row(t("fair.client_seed"), f.client_seed),
      row(t("fair.nonce"), f.nonce),
      row(t("fair.cut"), f.cut ?? "\u2013"),
      row(t("fair.position"), f.position),
    ),
    f.server_seed ? null : h("p", { class: "muted", text: t("fair.rotate_to_verify") }),
    (round.fairness || {}).client_seed_source === "server"
      ? h("p", { class: "muted", "data-fair": "server-client-seed", text: t("fair.server_client_seed") })
      : null,
    h("a", {
      class: "btn primary",
      href: verifyLink(round, tables),
      target: "_blank",
      rel: "noopener",
      "data-verify": round.id,
      text: t("history.verify"),
    }),
  );
}

/** The rotated seeds that wait for a cut shoe to end: which tables, how much is left. */
function waitingItems(pending, tables) {
  return (pending || []).flatMap((p) =>
    (p.shoes || []).map((shoe) => {
      const tbl = tables.find((x) => x.id === shoe.table_id);
      const table = tbl ? tableName(tbl) : shoe.table_id;
      const text = t("fair.waiting", { table, cards: shoe.cards_left, least: shoe.rounds_at_least, most: shoe.rounds_at_most });
      return h("li", { "data-waiting": shoe.table_id, text });
    }),
  );
}

/** The fairness settings; `rotated()` runs after a rotation (the open round's details). */
async function fairnessPanel(mode, rotated, tables) {
  const box = h("section", { class: "panel fairness", "aria-labelledby": "fair-title" });
  const message = h("p", { class: "message", role: "status" });
  let data;
  try {
    // A new commitment holds the server's placeholder client seed: a fresh one replaces it.
    data = await clientSeed.ensure(await api.get("/api/fairness", { mode }));
  } catch (error) {
    box.append(h("h2", { id: "fair-title", text: t("fair.title") }), h("p", { text: errorText(error) }));
    return box;
  }
  keepFairness(data);
  const info = data[mode] || data;
  const seed = h("input", { id: "client-seed", value: info.client_seed || "", maxlength: 64 });
  const commitmentText = h("dd", { "data-fair": "commitment" });
  const shoeText = h("dd", { "data-fair": "shoe-commitment" });
  const nonceText = h("dd", { "data-fair": "nonce" });
  const sourceText = h("p", { class: "muted", "data-fair": "source" });
  const waiting = h("ul", { class: "muted waiting", "data-fair": "waiting" });
  const show = (state) => {
    commitmentText.textContent = state.commitment || "";
    shoeText.textContent = state.shoe ? state.shoe.commitment : "\u2013";
    fill(waiting, waitingItems(state.pending, tables));
    nonceText.textContent = String(state.next_nonce ?? state.nonce ?? "");
    seed.value = state.client_seed || "";
    sourceText.dataset.source = clientSeed.sourceOf(state.client_seed, state.client_seed_source);
    sourceText.textContent = t(`fair.source_${sourceText.dataset.source}`);
  };
  show(info);
  const dl = h(
    "dl",
    { class: "kvs mono" },
    h("div", { class: "kv" }, h("dt", { text: t("fair.commitment") }), commitmentText),
    h("div", { class: "kv" }, h("dt", { text: t("fair.nonce") }), nonceText),
    h("div", { class: "kv" }, h("dt", { text: t("fair.shoe_commitment") }), shoeText),
  );
  const revealed = h("p", { class: "mono revealed" });
  box.append(
    h("h2", { id: "fair-title", text: t("fair.title") }),
    h("p", { class: "muted", text: t("fair.intro") }),
    dl,
    h(
      "form",
      {
        class: "row",
        onsubmit: async (event) => {
          event.preventDefault();
          try {
            show(await api.request("PUT", "/api/fairness/client-seed", { body: { mode, client_seed: seed.value } }));
            message.textContent = t("fair.seed_saved");
          } catch (error) {
            message.textContent = errorText(error);
          }
        },
      },
      h("label", { for: "client-seed", text: t("fair.client_seed") }),
      seed,
      h("button", { class: "btn", type: "submit", text: t("fair.save_seed") }),
    ),
    sourceText,
    waiting,
    h("button", {
      class: "btn",
      "data-rotate": "",
      text: t("fair.rotate"),
      onclick: async () => {
        // Rotating reveals the seed for good: the player says so first.
        if (!window.confirm(t("fair.rotate_confirm"))) return;
        try {
          const out = await api.post("/api/fairness/rotate", { mode });
          keep([out.current]);
          show((await clientSeed.ensure({ [mode]: out.current }))[mode]);
          const waits = (out.pending || []).flatMap((p) => p.tables);
          revealed.textContent = [
            out.revealed ? t("fair.revealed", { seed: out.revealed.server_seed }) : "",
            out.revealed_shoe_seed ? t("fair.revealed_shoe", { seed: out.revealed_shoe_seed.server_seed }) : "",
            out.revealed || !waits.length ? "" : t("fair.pending", { tables: waits.join(", ") }),
          ]
            .filter(Boolean)
            .join(" ");
          message.textContent = t("fair.rotated");
          await rotated();
        } catch (error) {
          message.textContent = errorText(error);
        }
      },
    }),
    revealed,
    message,
  );
  return box;
}

export async function render(root) {
  const page = h("div", { class: "history-page" });
  root.append(page);
  if (loginFirst(page)) {
    return {
      relabel: () => {
        page.remove();
        render(root);
      },
    };
  }
  let tables = [];
  try {
    tables = await store.tables();
  } catch {
    tables = [];
  }
  let mode = store.state.mode;
  let cursors = [null];
  let items = [];
  let next = null;
  let error = null;
  let opened = null;

  async function load() {
    try {
      const data = await api.get("/api/history", { mode, limit: PAGE, before: cursors.at(-1) });
      items = data.items || [];
      next = data.next ?? null;
      error = null;
    } catch (e) {
      error = errorText(e);
      items = [];
      next = null;
    }
  }

  async function open(id) {
    try {
      opened = await api.get(`/api/rounds/${encodeURIComponent(id)}`);
    } catch (e) {
      opened = items.find((r) => r.id === id) || null;
      error = errorText(e);
    }
    await draw();
    const el = page.querySelector("#round-detail");
    if (el) el.focus();
  }

  // After a rotation the open round's details are read again: its seed may be revealed now.
  async function rotated() {
    const shown = page.querySelector("#round-detail");
    if (!opened || !shown) return;
    opened = await api.get(`/api/rounds/${encodeURIComponent(opened.id)}`);
    shown.replaceWith(detail(opened, tables));
  }

  async function draw() {
    const list = items.length
      ? h(
          "div",
          { class: "scroll" },
          h(
            "table",
            { class: "history" },
            h("caption", { class: "sr-only", text: t("history.caption") }),
            h(
              "thead",
              null,
              h(
                "tr",
                null,
                ["time", "table", "player", "banker", "winner", "bets", "win", "balance", ""].map((k) =>
                  h("th", { scope: "col", text: k ? t(`history.col_${k}`) : "" }),
                ),
              ),
            ),
            h(
              "tbody",
              null,
              items.map((r) => {
                const tbl = tables.find((x) => x.id === r.table_id);
                const stake = Object.values(r.bets || {}).reduce((a, b) => a + b.stake, 0);
                // Each cell names its column (data-label): a phone shows it above the value.
                const col = (name, attrs = {}) => ({ "data-col": name, "data-label": t(`history.col_${name}`), ...attrs });
                return h(
                  "tr",
                  { "data-round": r.id, class: r.void_reason ? "void" : "" },
                  h("td", col("time", { text: dateTime(r.time || r.created_at) })),
                  h(
                    "td",
                    col("table", { "data-role": r.banked ? r.role : null }),
                    tbl ? tableName(tbl) : r.table_id,
                    r.banked ? h("small", { class: "role", text: ` (${t(`history.as_${r.role}`)})` }) : null,
                  ),
                  h("td", col("player"), handCell(r.player)),
                  h("td", col("banker"), handCell(r.banker)),
                  h("td", col("winner", { "data-winner": r.winner, text: t(`spot.${r.winner}`) })),
                  h("td", col("bets", { text: betsText(r.bets) })),
                  r.role === "banker" && r.banked
                    ? h("td", col("win", { class: "num", "data-net": r.banked.net }), signedMoney(r.banked.net))
                    : h("td", col("win", { class: "num" }), money(r.win), h("small", { text: ` (${signedMoney(r.win - stake)})` })),
                  h("td", col("balance", { class: "num", text: money(r.balance_after) })),
                  h(
                    "td",
                    null,
                    h("button", {
                      class: "btn small",
                      "data-open": r.id,
                      text: t("history.details"),
                      onclick: () => open(r.id),
                    }),
                  ),
                );
              }),
            ),
          ),
        )
      : h("p", { class: "muted empty", text: t("history.empty") });
    const modeTabs = h(
      "div",
      { class: "row", role: "group", "aria-label": t("history.mode") },
      // A session an operator launched plays in one mode: its history is of that mode.
      (store.state.operator ? [store.state.operator.mode] : ["fun", "real"]).map((m) =>
        h("button", {
          class: "btn small",
          "aria-pressed": String(m === mode),
          "data-history-mode": m,
          text: t(`mode.${m}`),
          onclick: async () => {
            mode = m;
            cursors = [null];
            opened = null;
            await load();
            await draw();
          },
        }),
      ),
    );
    fill(
      page,
      h("h1", { class: "page-title", text: t("nav.history") }),
      modeTabs,
      error ? h("p", { class: "message", role: "alert", text: error }) : null,
      list,
      h(
        "div",
        { class: "row pager" },
        h("button", {
          class: "btn",
          "data-page": "newer",
          disabled: cursors.length <= 1,
          text: t("history.newer"),
          onclick: async () => {
            cursors.pop();
            await load();
            await draw();
          },
        }),
        h("button", {
          class: "btn",
          "data-page": "older",
          disabled: !next,
          text: t("history.older"),
          onclick: async () => {
            cursors.push(next);
            await load();
            await draw();
          },
        }),
        h("a", {
          class: "btn",
          href: `/api/history/export?mode=${mode}`,
          download: `baccarat-history-${mode}.jsonl`,
          text: t("history.export"),
        }),
        h("a", { class: "btn", href: "#/recall", "data-recall": "open", text: t("recall.open") }),
      ),
      opened ? detail(opened, tables) : null,
      await fairnessPanel(mode, rotated, tables),
    );
  }

  await load();
  await draw();
  return { relabel: draw };
}
