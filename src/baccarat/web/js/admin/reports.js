// Reports: GGR and rounds per day (a chart), per table, bet and mode; RTP actual against
// theoretical with its band and alarm; liability; large wins and voids. Every table has
// its CSV download. All of it is read from the daily aggregates.

import { fill, h } from "../dom.js";
import { locale, number, t } from "../i18n.js";
import * as api from "./api.js";
import { askForm, betName, code, count, day, minor, named, panel, pct, table, when } from "./ui.js";

// Every row is of one mode and one currency: amounts are shown in it (the events of before
// currencies were recorded are in USD).
const inCurrency = (value, row) => minor(value, row.currency || "USD");
const modeName = (value) => named("mode", value);
// And of one banker: the house (GGR: stakes - returns) or a player (the stakes and returns
// are the players' between themselves; GGR: the casino's fees).
const ggrColumns = () => [
  ["mode", t("office.col.mode"), modeName],
  ["currency", t("office.col.currency")],
  ["banker", t("office.col.banker"), (who) => named("banker", who)],
  ["rounds", t("office.col.rounds"), count],
  ["stake", t("office.col.stakes"), inCurrency],
  ["returned", t("office.col.returns"), inCurrency],
  ["fees", t("office.col.fees"), inCurrency],
  ["ggr", t("office.col.ggr"), inCurrency],
  ["voided", t("office.col.voided"), count],
];

/** How many minor units make a unit of ``code`` (100 for EUR, 1 for JPY). */
const unitOf = (code) =>
  10 ** new Intl.NumberFormat("en-US", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits;

const DAY_MS = 86_400_000;

/** Every day from ``first`` to ``last`` (YYYY-MM-DD, UTC), at most a year of them. */
function daysBetween(first, last) {
  const days = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`) && days.length < 366; t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

function ggrChart(rows, first, last) {
  // Days without rounds are days of 0, so that the line runs through the whole range.
  const days = daysBetween(first, last);
  const x = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const series = [{}];
  const data = [x];
  const lines = [...new Set(rows.map((r) => `${r.mode} ${r.currency}`))].sort();
  for (const line of lines) {
    const [mode, currency] = line.split(" ");
    // A day's rows of both bankers (the house's tables, the player-banked ones) added up.
    const byDay = new Map();
    for (const r of rows.filter((row) => row.mode === mode && row.currency === currency)) {
      const sum = byDay.get(r.day) || { ggr: 0, rounds: 0 };
      byDay.set(r.day, { ggr: sum.ggr + r.ggr, rounds: sum.rounds + r.rounds });
    }
    const unit = unitOf(currency);
    data.push(days.map((d) => (byDay.has(d) ? byDay.get(d).ggr / unit : 0)));
    const which = { mode: named("mode", mode), currency };
    series.push({ label: t("office.chart.ggr", which), stroke: mode === "real" ? "#f2c94c" : "#7db7ff", width: 2, scale: "money" });
    data.push(days.map((d) => (byDay.has(d) ? byDay.get(d).rounds : 0)));
    series.push({ label: t("office.chart.rounds", which), stroke: mode === "real" ? "#c9962b" : "#62d98b", dash: [6, 4], scale: "rounds" });
  }
  const holder = h("div", { class: "chart", role: "img", "aria-label": t("office.chart.label") });
  if (data.length === 1) return holder;
  // The days and figures in the page's language (uPlot's own are English): the legend's and
  // the axes'.
  const dayOf = new Intl.DateTimeFormat(locale(), { month: "short", day: "numeric", timeZone: "UTC" });
  const isoDay = (seconds) => new Date(seconds * 1000).toISOString().slice(0, 10);
  series[0] = { label: t("office.col.day"), value: (_plot, x) => (x == null ? "" : day(isoDay(x))) };
  for (const line of series.slice(1)) line.value = (_plot, v) => (v == null ? "" : number(v));
  const axis = {
    stroke: "#b9c2b8",
    grid: { stroke: "#34493e" },
    ticks: { stroke: "#34493e" },
    values: (_plot, splits) => splits.map((v) => number(v)),
  };
  const draw = () => {
    const width = Math.max(320, holder.clientWidth || 600);
    holder.replaceChildren();
    // uPlot: the vendored library's script (vendor/uplot), loaded by admin/index.html.
    new globalThis.uPlot(
      {
        width,
        height: 260,
        series,
        scales: { x: { time: true } },
        axes: [
          { ...axis, values: (_plot, splits) => splits.map((x) => dayOf.format(new Date(x * 1000))) },
          { ...axis, scale: "money", label: t("office.col.ggr") },
          { ...axis, scale: "rounds", side: 1, label: t("office.chart.rounds_axis"), grid: { show: false } },
        ],
      },
      data,
      holder,
    );
  };
  requestAnimationFrame(draw);
  return holder;
}

// Rounds on operators' wallets whose win or rollback has not landed yet (stuck, retried),
// each with its calls on demand: every attempt, its answer or why there was none.
function operatorRounds(rows) {
  const calls = h("div");
  const showCalls = async (round) => {
    const found = await api.get(`operators/rounds/${round}/calls`);
    calls.replaceChildren(
      h("h3", { text: t("office.operators.calls_of", { round }) }),
      table(
        found.operator_calls,
        [
          ["call", t("office.operators.call"), code],
          ["attempt", t("office.operators.attempt"), count],
          ["sent", t("office.operators.sent"), when],
          ["answered", t("office.operators.answered"), when],
          ["http_status", t("office.operators.http")],
          ["status", t("office.col.status"), code],
          ["error", t("office.operators.error"), code],
        ],
        null,
        { name: t("office.operators.calls_of", { round }) },
      ),
    );
  };
  const button = (row) => {
    const open = h("button", { class: "btn small", type: "button", text: t("office.operators.calls") });
    open.addEventListener("click", () => showCalls(row.round));
    return open;
  };
  return panel(
    t("office.operators.title"),
    "operators/rounds",
    table(rows, [
      ["round", t("office.col.round"), code],
      ["operator", t("office.operators.operator"), code],
      ["player", t("office.col.player")],
      ["state", t("office.col.state"), code],
      ["stake", t("office.col.stake"), inCurrency],
      ["win", t("office.operators.win"), inCurrency],
      ["attempts", t("office.operators.attempt"), count],
      ["calls", t("office.operators.calls_sent"), count],
      ["created", t("office.operators.created"), when],
      ["next_attempt", t("office.operators.next_attempt"), when],
      [button, ""],
    ]),
    calls,
  );
}

export async function show(view, staff) {
  const from = h("input", { type: "date", name: "from" });
  const to = h("input", { type: "date", name: "to" });
  const period = h(
    "select",
    { name: "period" },
    ...["day", "month", "life"].map((p) => h("option", { value: p, text: t(`office.period.${p}`), selected: p === "month" })),
  );
  const body = h("div");
  const load = async () => {
    const range = new URLSearchParams();
    if (from.value) range.set("from", from.value);
    if (to.value) range.set("to", to.value);
    const q = range.toString() ? `&${range}` : "";
    const [byDay, byTable, byBet, byMode, rtp, liability, wins, voids, unfinished] = await Promise.all([
      api.get(`reports/ggr?by=day${q}`),
      api.get(`reports/ggr?by=table${q}`),
      api.get(`reports/ggr?by=bet${q}`),
      api.get(`reports/ggr?by=mode${q}`),
      api.get(`reports/rtp?period=${period.value}`),
      api.get("reports/liability"),
      api.get("reports/events/large_win"),
      api.get("reports/events/void"),
      api.get("operators/rounds"),
    ]);
    const today = new Date().toISOString().slice(0, 10);
    const first = from.value || new Date(Date.now() - 29 * DAY_MS).toISOString().slice(0, 10);
    const rtpRows = Object.values(rtp)[0];
    const alarms = rtpRows.filter((r) => r.alarm).length;
    const GGR_COLUMNS = ggrColumns();
    fill(
      body,
      panel(
        t("office.reports.by_day"),
        `reports/ggr?by=day${q}`,
        h("p", { class: "muted", text: t("office.reports.ggr_note") }),
        ggrChart(byDay["ggr-by-day"], first, to.value || today),
        table(byDay["ggr-by-day"], [["day", t("office.col.day"), day], ...GGR_COLUMNS], null, { figures: true }),
      ),
      // Tables of many columns: side by side only where both have room for every column.
      h(
        "div",
        { class: "office-grid office-figures" },
        panel(
          t("office.reports.by_table"),
          `reports/ggr?by=table${q}`,
          table(byTable["ggr-by-table"], [["table", t("office.col.table"), code], ...GGR_COLUMNS], null, { figures: true }),
        ),
        panel(
          t("office.reports.by_bet"),
          `reports/ggr?by=bet${q}`,
          table(byBet["ggr-by-bet"], [["bet", t("office.col.bet"), betName], ...GGR_COLUMNS], null, { figures: true }),
        ),
        panel(t("office.reports.by_mode"), `reports/ggr?by=mode${q}`, table(byMode["ggr-by-mode"], GGR_COLUMNS, null, { figures: true })),
      ),
      panel(
        t("office.reports.liability"),
        "reports/liability",
        table(
          liability.liability,
          [
            ["mode", t("office.col.mode"), modeName],
            ["currency", t("office.col.currency")],
            ["balances", t("office.reports.balances"), inCurrency],
            ["withdrawals_pending", t("office.reports.withdrawals_reserved"), inCurrency],
            ["deposits_pending", t("office.reports.deposits_pending"), inCurrency],
            ["in_play", t("office.reports.in_play"), inCurrency],
          ],
          null,
          { figures: true },
        ),
      ),
      panel(
        t(alarms === 1 ? "office.reports.rtp_one" : "office.reports.rtp", { alarms: number(alarms) }),
        `reports/rtp?period=${period.value}`,
        h("p", { class: "muted", text: t("office.reports.rtp_note") }),
        table(
          rtpRows,
          [
            ["table", t("office.col.table"), code],
            ["bet", t("office.col.bet"), betName],
            ["mode", t("office.col.mode"), modeName],
            ["currency", t("office.col.currency")],
            ["bets", t("office.col.bets"), count],
            ["stake", t("office.col.stakes"), inCurrency],
            ["returned", t("office.col.returns"), inCurrency],
            ["actual", t("office.reports.actual"), pct],
            ["theoretical", t("office.reports.theoretical"), pct],
            ["low", t("office.reports.band_low"), pct],
            ["high", t("office.reports.band_high"), pct],
            ["alarm", t("office.reports.alarm"), (a) => (a ? t("office.reports.alarm_on") : "")],
          ],
          (row) => (row.alarm ? "alarm" : null),
          { figures: true },
        ),
      ),
      h(
        "div",
        { class: "office-grid" },
        panel(
          t("office.reports.large_wins"),
          "reports/events/large_win",
          table(wins.large_win, [
            ["time", t("office.col.time"), when],
            ["subject", t("office.col.round"), code],
            ["actor", t("office.col.player"), code],
            ["table", t("office.col.table"), code],
            ["stake", t("office.col.stake"), inCurrency],
            ["returned", t("office.col.returned"), inCurrency],
          ]),
        ),
        panel(
          t("office.reports.voided"),
          "reports/events/void",
          table(voids.void, [
            ["time", t("office.col.time"), when],
            ["subject", t("office.col.round"), code],
            ["actor", t("office.col.by"), code],
            ["mode", t("office.col.mode"), modeName],
            ["stake", t("office.col.stake"), inCurrency],
            ["returned", t("office.col.returned"), inCurrency],
          ]),
        ),
      ),
      operatorRounds(unfinished.operator_rounds),
    );
  };
  const controls = askForm(
    [
      h("label", null, t("office.reports.from"), from),
      h("label", null, t("office.reports.to"), to),
      h("label", null, t("office.reports.rtp_period"), period),
    ],
    t("office.show"),
    load,
  );
  fill(view, h("h1", { text: t(staff.role === "viewer" ? "office.reports.title_read_only" : "office.page.reports") }), controls, body);
  await load();
}
