// Rules and help: the table's rules, the third-card tables, the payouts, RTP per bet from
// the server, the limits and the game's version number.

import { fill, h } from "./dom.js";
import { orRefusal } from "./errors.js";
import { money, number, percent, t } from "./i18n.js";
import { setShortcuts, shortcutList, shortcutsOn } from "./keys.js";
import { SPOTS, spotsOf } from "./betting.js";
import { describeRules, fraction, pays, playerCuts, tableName, toOne } from "./rulesinfo.js";
import * as store from "./state.js";

// The banker's tableau (SPEC §1): score -> player third-card values on which banker draws.
const BANKER_DRAWS = {
  3: [0, 1, 2, 3, 4, 5, 6, 7, 9],
  4: [2, 3, 4, 5, 6, 7],
  5: [4, 5, 6, 7],
  6: [6, 7],
};
const ALL = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const dash = (list) => list.join("-");

function table(caption, head, rows, id) {
  return h(
    "table",
    { class: "rules-table", id },
    h("caption", { id: id ? `${id}-caption` : null, text: caption }),
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        head.map((x) => h("th", { scope: "col", text: x })),
      ),
    ),
    h(
      "tbody",
      null,
      rows.map((row) =>
        h(
          "tr",
          null,
          row.map((x, i) => h(i ? "td" : "th", i ? {} : { scope: "row" }, x)),
        ),
      ),
    ),
  );
}

function thirdCardTables() {
  const player = table(
    t("rules.player_table"),
    [t("rules.two_card_score"), t("rules.action")],
    [
      ["0-1-2-3-4-5", t("rules.draws")],
      ["6-7", t("rules.stands")],
      ["8-9", t("rules.natural")],
    ],
    "player-tableau",
  );
  const rows = [["0-1-2", t("rules.always_draws"), "\u2013"]];
  for (const s of [3, 4, 5, 6]) {
    rows.push([String(s), dash(BANKER_DRAWS[s]), dash(ALL.filter((v) => !BANKER_DRAWS[s].includes(v)))]);
  }
  rows.push(["7", t("rules.always_stands"), "\u2013"]);
  rows.push(["8-9", t("rules.natural_both"), t("rules.natural_both")]);
  const banker = table(
    t("rules.banker_table"),
    [t("rules.two_card_score"), t("rules.draws_when"), t("rules.stands_when")],
    rows,
    "banker-tableau",
  );
  const stood = table(
    t("rules.banker_stood_table"),
    [t("rules.two_card_score"), t("rules.action")],
    [
      ["0-1-2-3-4-5", t("rules.draws")],
      ["6-7", t("rules.stands")],
    ],
    "banker-stood",
  );
  return [player, banker, stood];
}

/** The Banker bet's pay: 19:20 (5% commission), or 1:1 with its no-commission exceptions. */
function bankerPays(tbl, p) {
  const rate = (tbl.rules || {}).banker_commission;
  const commission = rate == null ? 0 : fraction(rate);
  const parts = [toOne(p.banker)];
  if (commission > 0) parts.push(`(${t("rules.commission", { pct: percent(commission, 0) })})`);
  const lines = ((tbl.bets || {}).banker || {}).pays || {};
  if (lines.win_three_card_7 === "push") parts.push(`\u00b7 ${t("rules.banker_three_card_7")}`);
  if (lines.win_with_6 && lines.win_with_6 !== lines.win) {
    parts.push(`\u00b7 ${t("rules.banker_six", { pays: toOne(fraction(lines.win_with_6)) })}`);
  }
  return parts.join(" ");
}

function payoutTable(tbl) {
  const p = pays(tbl);
  const rtp = tbl.rtp || {};
  return table(
    t("rules.payouts"),
    [t("rules.bet"), t("rules.pays_to"), t("rules.pays_for"), t("rules.rtp")],
    ["player", "banker", "tie"].map((bet) => [
      t(`spot.${bet}`),
      bet === "banker" ? bankerPays(tbl, p) : toOne(p[bet]),
      p[bet] == null ? "\u2013" : number(1 + p[bet]),
      rtp[bet] == null ? "\u2013" : percent(rtp[bet]),
    ]),
    "payouts",
  );
}

/** One pay-table line as text: "11:1", or "natural win 1:1" on a table of several lines. */
function payLine(line, pay, several) {
  const paid = pay === "push" ? t("rules.push") : toOne(fraction(pay));
  if (!several) return paid;
  const m = /^win_by_(\d)$/.exec(line);
  return `${m ? t("line.win_by", { n: m[1] }) : t(`line.${line}`)} ${paid}`;
}

/** The side bets a table takes: what wins, what it pays, the exact RTP and the limits. */
function sideBetsTable(tbl) {
  const side = Object.entries(tbl.bets || {}).filter(([name]) => !SPOTS.includes(name));
  if (!side.length) return null;
  return table(
    t("rules.side_bets"),
    [t("rules.bet"), t("rules.wins_when"), t("rules.pays_to"), t("rules.rtp"), t("rules.limit")],
    side.map(([name, bet]) => {
      const lines = Object.entries(bet.pays);
      return [
        t(`spot.${name}`),
        t(`side.${name}`),
        lines.map(([line, pay]) => payLine(line, pay, lines.length > 1)).join(", "),
        bet.rtp == null ? "\u2013" : percent(bet.rtp),
        t("limits.range", { min: money(bet.min), max: money(bet.max) }),
      ];
    }),
    "side-bets",
  );
}

function limitsTable(tbl) {
  const l = tbl.limits || {};
  const rows = [
    [t("limits.min"), money(l.min)],
    [t("limits.max"), money(l.max)],
  ];
  if (l.tie_max != null) {
    rows.push([t("limits.tie_min_alone"), money(l.tie_min_alone ?? l.min)]);
    rows.push([t("limits.tie_min"), money(l.tie_min ?? l.min)]);
    rows.push([t("limits.tie_max"), money(l.tie_max)]);
  }
  rows.push([t("rules.chips"), (tbl.chips || []).map(money).join(", ")]);
  return table(t("rules.limits_title"), [t("rules.limit"), t("rules.amount")], rows, "limits");
}

/** A published chance: its exact fraction and its percentage. */
const chanceText = (p) => `${p} (${percent(fraction(p))})`;

/**
 * Multiplier baccarat (docs/multiplier.md): how the multiplier cards pay, the fee, when they
 * are drawn, the two published distributions as exact fractions, each bet's exact return per
 * unit wagered (as a fraction beside its percentage), its spread, its largest multiplier and
 * how rare a pay of 100 times the stake is.
 */
function multiplierHelp(tbl) {
  const terms = tbl.rules.multipliers;
  const unit = Number(String(terms.fee).split("/")[1] || 1);
  const figures = Object.entries(tbl.bets || {}).filter(([, bet]) => bet.multiplier);
  return h(
    "section",
    { class: "panel prose", id: "multiplier-help" },
    h("h2", { text: t("rules.multiplier_title") }),
    h("p", { text: t("rules.multiplier_how") }),
    h("p", { text: t("rules.multiplier_fee", { fee: terms.fee, unit: money(unit) }) }),
    h("p", { text: t(tbl.shared ? "rules.multiplier_shared" : "rules.multiplier_house") }),
    h(
      "div",
      { class: "multiplier-odds" },
      table(
        t("rules.multiplier_counts"),
        [t("rules.cards"), t("rules.chance")],
        Object.entries(terms.counts).map(([k, p]) => [number(Number(k)), chanceText(p)]),
        "multiplier-counts",
      ),
      table(
        t("rules.multiplier_values"),
        [t("rules.multiplier"), t("rules.chance")],
        Object.entries(terms.values).map(([m, p]) => [`\u00d7${m}`, chanceText(p)]),
        "multiplier-values",
      ),
    ),
    h(
      "div",
      { class: "table-scroll", role: "region", tabindex: "0", "aria-labelledby": "multiplier-bets-caption" },
      table(
        t("rules.multiplier_bets"),
        [t("rules.bet"), t("rules.rtp_exact"), t("rules.rtp"), t("rules.sd"), t("rules.max_multiplier"), t("rules.pays_100x")],
        figures.map(([name, bet]) => [
          t(`spot.${name}`),
          h("span", { class: "fraction", text: bet.rtp_exact }),
          percent(Number(bet.rtp_percent) / 100, 4),
          number(bet.multiplier.sd),
          t("rules.times_one_in", { n: number(bet.multiplier.max_multiplier), odds: number(bet.multiplier.max_multiplier_one_in) }),
          t("rules.one_in", { n: number(bet.multiplier.pays_100x_one_in) }),
        ]),
        "multiplier-bets",
      ),
    ),
  );
}

/** What a shortcut does, in the help's words. */
function shortcutText(what) {
  if (what.chips) return t("help.key_chips");
  if (what.spot) return t("help.key_spot", { spot: t(`spot.${what.spot}`) });
  if (what.action === "approve") return t("help.key_approve");
  const label = { new: "new_game", "rebet-deal": "rebet_deal", "double-deal": "double_deal" }[what.action] || what.action;
  return t(`btn.${label}`);
}

/** The keyboard shortcuts, and the switch that turns the single keys off (WCAG 2.1.4). */
function shortcutsHelp() {
  const off = h("input", {
    type: "checkbox",
    id: "shortcuts-off",
    checked: !shortcutsOn(),
    onchange: () => setShortcuts(!off.checked),
  });
  return h(
    "div",
    { class: "shortcuts", "data-shortcuts": "" },
    h("h3", { text: t("help.shortcuts_title") }),
    h("p", { text: t("help.shortcuts") }),
    h(
      "dl",
      { class: "controls-help" },
      shortcutList().map(([key, what]) => [h("dt", null, h("kbd", { text: key })), h("dd", { text: shortcutText(what) })]),
      [h("dt", null, h("kbd", { text: "Escape" })), h("dd", { text: t("btn.new_game") })],
    ),
    h("p", { class: "row" }, off, h("label", { for: "shortcuts-off", text: t("help.shortcuts_off") })),
  );
}

/** Seed 000's "Spielen als Geber": how a player-banked table works. */
function bankedHelp(tbl) {
  const terms = tbl.banked;
  return h(
    "section",
    { class: "panel prose", "data-banked-help": "" },
    h("h2", { text: t("banked.help_title") }),
    h("p", { text: t("banked.help_how") }),
    h("p", { text: t("banked.help_time", { player: terms.player_seconds, banker: terms.banker_seconds }) }),
    h("p", { "data-time-why": "", text: t("banked.help_time_why") }),
    h("p", { text: t("banked.help_money", { percent: number(Number(terms.fee_percent)) }) }),
    h("p", {
      text: t("banked.help_points", {
        points: number(terms.min_points),
        balance: money(terms.min_banker_balance),
        exposure: money(terms.exposure),
      }),
    }),
    h("p", { text: t("banked.help_interruptions") }),
    h("p", { "data-main-only": "", text: t("banked.main_bets_only") }),
  );
}

export async function render(root, tableId) {
  const page = h("div", { class: "rules-page" });
  root.append(page);
  const [tables, error] = await orRefusal(store.tables(), []);
  const version = await store.version();
  let current = tables.find((x) => x.id === tableId) || tables[0] || null;

  function draw() {
    const select = h(
      "select",
      {
        id: "rules-table",
        onchange: () => {
          current = tables.find((x) => x.id === select.value);
          history.replaceState(null, "", `#/rules/${encodeURIComponent(current.id)}`);
          draw();
        },
      },
      tables.map((x) => h("option", { value: x.id, selected: current && x.id === current.id, text: tableName(x) })),
    );
    const controls = ["undo", "clear", "double", "rebet", "deal", "double_deal", "rebet_deal", "new_game"];
    fill(
      page,
      h("h1", { class: "page-title", text: t("nav.rules") }),
      h("p", { class: "version", id: "game-version", text: t("rules.version", { version }) }),
      error ? h("p", { class: "message", role: "alert", text: error }) : null,
      h(
        "div",
        { class: "panel" },
        h("label", { for: "rules-table", text: t("rules.choose_table") }),
        select,
        current ? h("p", { class: "summary", text: describeRules(current) }) : null,
        playerCuts(current) ? h("p", { text: t("rules.cut_help") }) : null,
      ),
      h(
        "section",
        { class: "panel prose" },
        h("h2", { text: t("rules.goal_title") }),
        h("p", { "data-goal": "", text: t("rules.goal", { n: number(spotsOf(current).length) }) }),
        h("h2", { text: t("rules.values_title") }),
        h("p", { text: t("rules.values") }),
        h("p", { text: t("rules.natural_rule") }),
        h("p", { text: t("rules.tie_rule") }),
        h("p", { text: t("rules.score_format") }),
      ),
      current && current.banked ? bankedHelp(current) : null,
      current && current.rules && current.rules.multipliers ? multiplierHelp(current) : null,
      current && current.shared
        ? h(
            "section",
            { class: "panel prose", id: "shared-help" },
            h("h2", { text: t("shared.help_title") }),
            ["clock", "bets", "fair"].map((part) => h("p", { text: t(`shared.help_${part}`, current.shared) })),
          )
        : null,
      h(
        "section",
        { class: "panel prose", id: "roads-help" },
        h("h2", { text: t("rules.roads_title") }),
        ["scope", "bead", "big", "derived", "ask"].map((part) => h("p", { text: t(`rules.roads_${part}`) })),
        h("p", { class: "roads-odds", text: t("rules.roads_odds") }),
      ),
      h("section", { class: "panel" }, h("h2", { text: t("rules.third_card") }), thirdCardTables()),
      current ? h("section", { class: "panel" }, payoutTable(current), h("p", { class: "muted", text: t("rules.rounding") })) : null,
      current && sideBetsTable(current) ? h("section", { class: "panel" }, sideBetsTable(current)) : null,
      current ? h("section", { class: "panel" }, limitsTable(current)) : null,
      h(
        "section",
        { class: "panel prose" },
        h("h2", { text: t("rules.controls_title") }),
        h(
          "dl",
          { class: "controls-help" },
          controls.map((c) => [h("dt", { text: t(`btn.${c}`) }), h("dd", { text: t(`help.${c}`) })]),
          ["bet", "balance", "win", "last"].map((m) => [h("dt", { text: t(`meter.${m}`) }), h("dd", { text: t(`help.meter_${m}`) })]),
          ["squeeze", "fast"].map((o) => [h("dt", { text: t(`option.${o}`) }), h("dd", { "data-help": o, text: t(`option.${o}_help`) })]),
        ),
        h("p", { text: t("help.keyboard") }),
        shortcutsHelp(),
        h("p", { text: t("help.interruptions") }),
      ),
    );
  }
  draw();
  return { relabel: draw };
}
