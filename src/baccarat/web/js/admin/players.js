// Players and rounds: find a player, their card (balances, limits, exclusion, sessions,
// requests, audit) and game recall (the last 10 rounds as dealt, with the fairness data
// and the verifier's link); any round by id; a void with its reason.

import { cardElement } from "../cards.js";
import { fill, h } from "../dom.js";
import { verifyLink } from "../history.js";
import * as api from "./api.js";
import { cents, keyValues, minor, panel, reasonForm, table } from "./ui.js";

function hand(label, side) {
  return h(
    "div",
    { class: "hand" },
    h("b", { text: label }),
    ...(side.cards || []).map((card) => cardElement(card)),
    h("span", {
      class: "muted",
      text: ` ${(side.scores || []).join(" → ")}`,
      title: "the total after the first two cards, then after each drawn card",
    }),
  );
}

/** A round as it was played: cards in deal order, each bet and its return, balances. */
export function recalled(round, staff, onChange) {
  const bets = Object.entries(round.bets || {}).map(([bet, b]) => ({ bet, ...b }));
  const f = round.fairness || {};
  const box = h(
    "article",
    { class: `recall-round${round.void_reason ? " void" : ""}`, "data-round": round.id },
    h("h3", { class: "mono", text: `${round.id} · ${round.table_id} · ${round.mode} · ${round.time}` }),
    h("div", { class: "hands" }, hand("P", round.player), hand("B", round.banker)),
    table(
      bets,
      [
        ["bet", "Bet"],
        ["stake", "Stake", cents],
        ["result", "Result"],
        ["returned", "Returned", cents],
      ],
      null,
      { figures: true },
    ),
    keyValues([
      ["Winner", round.winner],
      ["Balance", `${cents(round.balance_before)} → ${cents(round.balance_after)}`],
      ["Commitment", f.commitment],
      ["Server seed", f.server_seed || "not revealed yet"],
      ["Client seed · nonce", `${f.client_seed} · ${f.nonce}`],
      ["Void", round.void_reason || ""],
    ]),
    h("a", { href: `/${verifyLink(round, [])}`, target: "_blank", rel: "noopener", text: "Verify this round" }),
  );
  if (!round.void_reason && staff.permissions.includes("void_propose")) {
    box.append(
      reasonForm(
        round.mode === "real" ? "Propose void" : "Void",
        async (reason) => {
          const done = await api.post(`rounds/${round.id}/void`, { reason });
          box.append(
            h("p", {
              role: "status",
              text: done.status === "proposed" ? `Void proposed (#${done.proposal}): another admin approves it.` : "Voided.",
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

const LIMIT_KINDS = { deposit: "Deposits", loss: "Net loss", wager: "Wagered" };

/** The player's own limits, a line each: the amounts in their currency, per period. */
function limitLines(limits, currency) {
  const lines = Object.entries(LIMIT_KINDS).map(([kind, label]) => {
    const set = ["day", "week", "month"].filter((period) => (limits[kind] || {})[period] != null);
    const shown = set.map((period) => `${minor(limits[kind][period], currency)} a ${period}`);
    return `${label}: ${shown.length ? shown.join(", ") : "no limit"}`;
  });
  const minutes = limits.session_minutes;
  lines.push(`Session: ${minutes == null ? "no limit" : `${minutes} minutes`}`);
  return h("ul", { class: "office-limits", "data-limits": "" }, ...lines.map((line) => h("li", { text: line })));
}

async function showCard(target, playerId, staff) {
  const card = await api.get(`players/${playerId}`);
  const r = card.responsible || {};
  const exclusion = r.exclusion ? `${r.exclusion.kind} until ${r.exclusion.until}` : "none";
  const inCurrency = (value) => minor(value, card.currency);
  fill(
    target,
    panel(
      `${card.player.nickname} (id ${card.player.id})`,
      null,
      keyValues([
        ["Registered", card.player.created],
        ["Fun balance", inCurrency(card.balances.fun)],
        ["Real balance", inCurrency(card.balances.real)],
        ["Withdrawals pending", inCurrency(card.withdrawals_pending)],
        ["Exclusion", exclusion],
        ["Limits", limitLines(r.limits || {}, card.currency)],
      ]),
    ),
    h(
      "div",
      { class: "office-grid" },
      panel(
        "Sessions",
        null,
        table(card.sessions, [
          ["id", "Session"],
          ["created", "Started"],
          ["expires", "Expires"],
        ]),
      ),
      panel(
        "Cashier requests",
        null,
        table(card.requests, [
          ["id", "Id"],
          ["kind", "Kind"],
          ["amount", "Amount", inCurrency],
          ["status", "Status"],
          ["time", "Time"],
        ]),
      ),
      panel(
        "Responsible-gaming audit",
        null,
        table(card.responsible_audit, [
          ["time", "Time"],
          ["action", "Action"],
          ["details", "Details", (d) => JSON.stringify(d)],
        ]),
      ),
      panel(
        "Staff audit",
        null,
        table(card.staff_audit, [
          ["time", "Time"],
          ["staff", "Staff"],
          ["action", "Action"],
          ["reason", "Reason"],
        ]),
      ),
    ),
    panel(
      "Game recall: the last 10 rounds",
      null,
      h("div", { class: "recall" }, ...card.recall.map((round) => recalled(round, staff, () => showCard(target, playerId, staff)))),
    ),
  );
}

export async function show(view, staff) {
  const query = h("input", { name: "q", required: true, maxlength: "24", placeholder: "nickname or id", "aria-label": "Find a player" });
  const results = h("div");
  const card = h("div");
  const form = h("form", { class: "toolbar panel" }, query, h("button", { class: "btn primary", type: "submit", text: "Find" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const found = await api.get(`players?q=${encodeURIComponent(query.value)}`);
    fill(
      results,
      table(found.players, [
        [
          "nickname",
          "Player",
          (nickname, row) => h("button", { type: "button", class: "btn", text: nickname, onclick: () => showCard(card, row.id, staff) }),
        ],
        ["id", "Id"],
        ["created", "Registered"],
      ]),
    );
    if (found.players.length === 1) await showCard(card, found.players[0].id, staff);
  });
  fill(view, h("h1", { text: "Players" }), form, results, card);
}

export async function showRound(view, staff) {
  const id = h("input", {
    name: "round",
    required: true,
    pattern: "r_[0-9a-f]{20}",
    placeholder: "r_…",
    "aria-label": "Round id",
    class: "mono",
  });
  const target = h("div");
  const form = h(
    "form",
    { class: "toolbar panel" },
    id,
    h("button", { class: "btn primary", type: "submit", text: "Show" }),
    h("span", { class: "office-error", role: "alert" }),
  );
  const load = async () => {
    const found = await api.get(`rounds/${id.value.trim()}`);
    fill(
      target,
      panel(`Round of ${found.player.nickname} (player ${found.player.id})`, null, recalled(found.round, staff, load)),
      panel(
        "Void proposals",
        null,
        table(found.void_proposals, [
          ["id", "Id"],
          ["proposed", "Time"],
          ["proposed_by", "By"],
          ["reason", "Reason"],
          ["status", "Status"],
        ]),
      ),
    );
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    form.lastChild.textContent = "";
    try {
      await load();
    } catch (failure) {
      form.lastChild.textContent = failure.message;
    }
  });
  fill(view, h("h1", { text: "Rounds" }), form, target);
}
