// Players and rounds: find a player, their card (balances, limits, exclusion, sessions,
// requests, audit) and game recall (the last 10 rounds as dealt, with the fairness data
// and the verifier's link); any round by id; a void with its reason.

import { cardElement } from "../cards.js";
import { fill, h } from "../dom.js";
import { verifyLink } from "../history.js";
import { stepsList } from "../steps.js";
import { t } from "../i18n.js";
import { multipliersOf, times } from "../lightning.js";
import * as api from "./api.js";
import { actor, askForm, betName, cents, code, keyValues, minor, named, panel, reasonForm, table, when } from "./ui.js";

function hand(side, cards, multipliers = new Map()) {
  return h(
    "div",
    { class: "hand" },
    h("b", { text: t(`bet.${side}`) }),
    ...(cards.cards || []).map((card) => cardElement(card, "", multipliers.get(card))),
    h("span", {
      class: "muted",
      text: ` ${(cards.scores || []).join(" → ")}`,
      title: t("office.recall.scores"),
    }),
  );
}

/** A round as it was played: cards in deal order, each bet and its return, balances (in
 * ``money``: the player's currency); at a multiplier table its multiplier cards (marked on
 * the hands too) and each bet's fee and multiplier. */
export function recalled(round, staff, onChange, money = cents) {
  const bets = Object.entries(round.bets || {}).map(([bet, b]) => ({ multiplier: 1, fee: 0, ...b, bet }));
  const f = round.fairness || {};
  const lightning = round.lightning || [];
  const multipliers = multipliersOf(round);
  const fees = round.fee
    ? [
        ["fee", t("office.col.fee"), money],
        ["multiplier", t("office.col.multiplier"), times],
      ]
    : [];
  const box = h(
    "article",
    { class: `recall-round${round.void_reason ? " void" : ""}`, "data-round": round.id },
    h("h3", null, code(round.id), " · ", code(round.table_id), ` · ${named("mode", round.mode)} · ${when(round.time)}`),
    h("div", { class: "hands" }, hand("player", round.player, multipliers), hand("banker", round.banker, multipliers)),
    round.steps ? stepsList(round) : null, // in deal order, as the player's recall shows it
    table(
      bets,
      [
        ["bet", t("office.col.bet"), betName],
        ["stake", t("office.col.stake"), money],
        ["result", t("office.col.result"), (result) => named("result", result)],
        ["returned", t("office.col.returned"), money],
        ...fees,
      ],
      null,
      { figures: true, name: t("office.recall.bets", { round: round.id }) },
    ),
    keyValues([
      [t("office.recall.winner"), betName(round.winner)],
      ...(lightning.length
        ? [[t("office.recall.lightning"), lightning.map((one) => `${one.card} ${times(one.multiplier)}`).join(" \u00b7 ")]]
        : []),
      [t("office.recall.balance"), `${money(round.balance_before)} → ${money(round.balance_after)}`],
      [t("office.recall.commitment"), code(f.commitment)],
      [t("office.recall.server_seed"), f.server_seed ? code(f.server_seed) : t("office.recall.not_revealed")],
      [t("office.recall.client_seed"), code(`${f.client_seed} · ${f.nonce}`)],
      [t("office.recall.void"), round.void_reason || ""],
    ]),
    h("a", { href: `/${verifyLink(round, [])}`, target: "_blank", rel: "noopener", text: t("office.recall.verify") }),
  );
  if (!round.void_reason && staff.permissions.includes("void_propose")) {
    box.append(
      reasonForm(
        t(round.mode === "real" ? "office.recall.propose_void" : "office.recall.void_now"),
        async (reason) => {
          const done = await api.post(`rounds/${round.id}/void`, { reason });
          box.append(
            h("p", {
              role: "status",
              text: done.status === "proposed" ? t("office.recall.proposed", { proposal: done.proposal }) : t("office.recall.voided"),
            }),
          );
          onChange?.();
        },
        { danger: true },
      ),
    );
  }
  return box;
}

const LIMIT_KINDS = ["deposit", "loss", "wager"];

/** The player's own limits, a line each: the amounts in their currency, per period. */
function limitLines(limits, currency) {
  const lines = LIMIT_KINDS.map((kind) => {
    const set = ["day", "week", "month"].filter((period) => (limits[kind] || {})[period] != null);
    const shown = set.map((period) => t(`office.limits.per_${period}`, { amount: minor(limits[kind][period], currency) }));
    return t("office.limits.line", { kind: t(`office.limits.${kind}`), limits: shown.length ? shown.join(", ") : t("office.limits.none") });
  });
  const minutes = limits.session_minutes;
  lines.push(
    t("office.limits.line", {
      kind: t("office.limits.session"),
      limits: minutes == null ? t("office.limits.none") : t("office.limits.minutes", { minutes }),
    }),
  );
  return h("ul", { class: "office-limits", "data-limits": "" }, ...lines.map((line) => h("li", { text: line })));
}

async function showCard(target, playerId, staff) {
  const card = await api.get(`players/${playerId}`);
  const r = card.responsible || {};
  const exclusion = r.exclusion
    ? t("office.card.excluded", { kind: named("exclusion", r.exclusion.kind), until: when(r.exclusion.until) })
    : t("office.none");
  const inCurrency = (value) => minor(value, card.currency);
  fill(
    target,
    panel(
      t("office.card.title", { nickname: card.player.nickname, id: card.player.id }),
      null,
      keyValues([
        [t("office.card.registered"), when(card.player.created)],
        [t("office.card.fun_balance"), inCurrency(card.balances.fun)],
        [t("office.card.real_balance"), inCurrency(card.balances.real)],
        [t("office.card.withdrawals_pending"), inCurrency(card.withdrawals_pending)],
        [t("office.card.exclusion"), exclusion],
        [t("office.card.limits"), limitLines(r.limits || {}, card.currency)],
      ]),
    ),
    h(
      "div",
      { class: "office-grid" },
      panel(
        t("office.card.sessions"),
        null,
        table(card.sessions, [
          ["id", t("office.col.session"), code],
          ["created", t("office.col.started"), when],
          ["expires", t("office.col.expires"), when],
        ]),
      ),
      panel(
        t("office.card.requests"),
        null,
        table(card.requests, [
          ["id", t("office.col.id")],
          ["kind", t("office.col.kind"), (kind) => named("kind", kind)],
          ["amount", t("office.col.amount"), inCurrency],
          ["status", t("office.col.status"), (status) => named("status", status)],
          ["time", t("office.col.time"), when],
        ]),
      ),
      panel(
        t("office.card.responsible_audit"),
        null,
        table(card.responsible_audit, [
          ["time", t("office.col.time"), when],
          ["action", t("office.col.action"), (action) => named("rg", action)],
          ["details", t("office.col.details"), code],
        ]),
      ),
      panel(
        t("office.card.staff_audit"),
        null,
        table(card.staff_audit, [
          ["time", t("office.col.time"), when],
          ["staff", t("office.col.staff"), actor],
          ["action", t("office.col.action"), (action) => named("action", action)],
          ["reason", t("office.col.reason")],
        ]),
      ),
    ),
    panel(
      t("office.card.recall"),
      null,
      h(
        "div",
        { class: "recall" },
        ...card.recall.map((round) => recalled(round, staff, () => showCard(target, playerId, staff), inCurrency)),
      ),
    ),
  );
}

export async function show(view, staff) {
  const query = h("input", {
    name: "q",
    required: true,
    maxlength: "24",
    placeholder: t("office.players.query"),
    "aria-label": t("office.players.find_label"),
  });
  const results = h("div");
  const card = h("div");
  const form = askForm(query, t("office.players.find"), async () => {
    const found = await api.get(`players?q=${encodeURIComponent(query.value)}`);
    fill(
      results,
      table(
        found.players,
        [
          [
            "nickname",
            t("office.col.player"),
            (nickname, row) => h("button", { type: "button", class: "btn", text: nickname, onclick: () => showCard(card, row.id, staff) }),
          ],
          ["id", t("office.col.id")],
          ["created", t("office.col.registered"), when],
        ],
        null,
        { name: t("office.players.found") },
      ),
    );
    if (found.players.length === 1) await showCard(card, found.players[0].id, staff);
  });
  fill(view, h("h1", { text: t("office.page.players") }), form, results, card);
}

export async function showRound(view, staff) {
  const id = h("input", {
    name: "round",
    required: true,
    pattern: "r_[0-9a-f]{20}",
    placeholder: "r_…",
    "aria-label": t("office.rounds.id"),
    class: "mono",
  });
  const target = h("div");
  const load = async () => {
    const found = await api.get(`rounds/${id.value.trim()}`);
    fill(
      target,
      panel(
        t("office.rounds.of", { nickname: found.player.nickname, id: found.player.id }),
        null,
        recalled(found.round, staff, load, (value) => minor(value, found.currency)),
      ),
      panel(
        t("office.rounds.proposals"),
        null,
        table(found.void_proposals, [
          ["id", t("office.col.id")],
          ["proposed", t("office.col.time"), when],
          ["proposed_by", t("office.col.by")],
          ["reason", t("office.col.reason")],
          ["status", t("office.col.status"), (status) => named("status", status)],
        ]),
      ),
    );
  };
  const form = askForm(id, t("office.show"), load);
  fill(view, h("h1", { text: t("office.page.rounds") }), form, target);
}
