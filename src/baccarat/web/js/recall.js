// Game recall (docs/jurisdictions.md): the last round and the nine before it, each stepped
// through as it was played: the bets and the balance before, each card as dealt with its
// hand's score, then the result and the balance after. Everything shown is the server's
// (GET /api/history/recall), which the export and the back office show alike.

import * as api from "./api.js";
import { cardElement } from "./cards.js";
import { announce, fill, h } from "./dom.js";
import { errorText } from "./errors.js";
import { loginFirst } from "./gate.js";
import { dateTime, money, t } from "./i18n.js";
import { tableName } from "./rulesinfo.js";
import * as store from "./state.js";
import { stepNow, stepsList } from "./steps.js";

/** The cards of a hand dealt up to step `at` (0: none yet). */
const dealtBy = (round, side, at) => round.steps.filter((s) => s.hand === side && s.step <= at);

function handView(round, side, at) {
  const dealt = dealtBy(round, side, at);
  const shown = dealt.length ? dealt[dealt.length - 1].score : "\u2013";
  return h(
    "div",
    { class: "detail-hand", "data-hand": side },
    h("h3", { text: t(`bet.${side}`) }),
    h(
      "div",
      { class: "cards" },
      dealt.map((s) => cardElement(s.card)),
    ),
    h("p", { class: "score-text", "data-score": side, text: t("recall.score", { score: shown }) }),
  );
}

const row = (label, value, attrs = {}) => h("div", { class: "kv", ...attrs }, h("dt", { text: label }), h("dd", { text: value }));

function roundView(round, at, go, tables) {
  const last = round.steps.length;
  const tbl = tables.find((x) => x.id === round.table_id); // (its id: a table gone since)
  const done = at >= last;
  const bets = Object.entries(round.bets || {});
  return h(
    "section",
    { class: "panel recall-round", "data-round": round.id, "data-at": at, "aria-labelledby": "recall-round-title" },
    h("h2", { id: "recall-round-title", text: t("recall.round", { id: round.id }) }),
    h(
      "dl",
      { class: "kvs" },
      row(t("history.time"), dateTime(round.time)),
      row(t("history.table"), tbl ? tableName(tbl) : round.table_id, { "data-recall": "table" }),
      row(t("history.mode"), t(`mode.${round.mode}`)),
      row(t("history.balance_before"), money(round.balance_before), { "data-recall": "before" }),
      bets.map(([spot, bet]) => row(t(`bet.${spot}`), money(bet.stake), { "data-bet": spot })),
    ),
    h("div", { class: "detail-hands" }, handView(round, "player", at), handView(round, "banker", at)),
    h("p", {
      class: "recall-now",
      "data-recall": "now",
      text: at ? stepNow(round.steps[at - 1], round.steps.length) : t("recall.before_deal"),
    }),
    h(
      "div",
      { class: "row" },
      h("button", { class: "btn", "data-step-go": "back", disabled: at === 0, text: t("recall.step_back"), onclick: () => go(at - 1) }),
      h("button", { class: "btn primary", "data-step-go": "next", disabled: done, text: t("recall.step_next"), onclick: () => go(at + 1) }),
      h("button", { class: "btn", "data-step-go": "all", disabled: done, text: t("recall.step_all"), onclick: () => go(last) }),
    ),
    done
      ? h(
          "dl",
          { class: "kvs", "data-recall": "result" },
          row(t("history.winner"), t(`bet.${round.winner}`)),
          bets.map(([spot, bet]) =>
            row(
              t(`bet.${spot}`),
              t("history.bet_line", { stake: money(bet.stake), result: t(`marker.${bet.result}`), returned: money(bet.returned) }),
            ),
          ),
          row(t("meter.win"), money(round.win)),
          row(t("history.balance_after"), money(round.balance_after), { "data-recall": "after" }),
          round.void_reason ? row(t("history.void"), round.void_reason) : null,
        )
      : null,
    h("h3", { class: "sr-only", text: t("recall.steps") }),
    stepsList(round, at),
  );
}

export async function render(root) {
  if (loginFirst(root)) return null;
  const page = h("div", { class: "page recall-page" });
  root.append(page);
  let rounds = [];
  let error = null;
  let tables = []; // to name each round's table
  try {
    [rounds, tables] = await Promise.all([
      api.get("/api/history/recall", { last: 10 }).then((answer) => answer.rounds),
      store.tables().catch(() => []),
    ]);
  } catch (failure) {
    error = errorText(failure);
  }
  let index = 0; // 0: the last round; 9: the tenth before
  let at = 0; // the step shown: 0 before the deal, then each card

  function draw() {
    const round = rounds[index];
    const go = (step) => {
      at = Math.max(0, Math.min(step, round.steps.length));
      draw();
      announce(at ? stepNow(round.steps[at - 1], round.steps.length) : t("recall.before_deal"));
      page.querySelector(`[data-step-go="${at >= round.steps.length ? "back" : "next"}"]`).focus();
    };
    const pick = (next) => {
      index = next;
      at = 0;
      draw();
      page.querySelector("#recall-round-title").focus();
    };
    fill(
      page,
      h("h1", { class: "page-title", text: t("recall.title") }),
      h("p", { class: "muted", text: t("recall.intro") }),
      error ? h("p", { class: "message", role: "alert", text: error }) : null,
      !error && !rounds.length ? h("p", { class: "message", text: t("recall.none") }) : null,
      rounds.length
        ? h(
            "nav",
            { class: "row pager", "aria-label": t("recall.rounds") },
            h("button", {
              class: "btn",
              "data-round-go": "newer",
              disabled: index === 0,
              text: t("recall.newer"),
              onclick: () => pick(index - 1),
            }),
            h("p", { class: "recall-which", "data-recall": "which", text: t("recall.which", { n: index + 1, of: rounds.length }) }),
            h("button", {
              class: "btn",
              "data-round-go": "older",
              disabled: index >= rounds.length - 1,
              text: t("recall.older"),
              onclick: () => pick(index + 1),
            }),
          )
        : null,
      round ? roundView(round, at, go, tables) : null,
      h("p", null, h("a", { href: "#/history", text: t("recall.to_history") })),
    );
    const title = page.querySelector("#recall-round-title");
    if (title) title.tabIndex = -1;
  }
  draw();
  return { relabel: draw };
}
