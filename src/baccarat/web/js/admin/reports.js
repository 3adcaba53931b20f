// Reports: GGR and rounds per day (a chart), per table, bet and mode; RTP actual against
// theoretical with its band and alarm; liability; large wins and voids. Every table has
// its CSV download. All of it is read from the daily aggregates.

import { fill, h } from "../dom.js";
import * as api from "./api.js";
import { minor, panel, pct, table } from "./ui.js";

// Every row is of one mode and one currency: amounts are shown in it (the events of before
// currencies were recorded are in USD).
const inCurrency = (value, row) => minor(value, row.currency || "USD");
// And of one banker: the house (GGR: stakes - returns) or a player (the stakes and returns
// are the players' between themselves; GGR: the casino's fees).
const BANKERS = { house: "House", player: "Player" };
const GGR_COLUMNS = [
  ["mode", "Mode"],
  ["currency", "Currency"],
  ["banker", "Banker", (who) => BANKERS[who] || who],
  ["rounds", "Rounds"],
  ["stake", "Stakes", inCurrency],
  ["returned", "Returns", inCurrency],
  ["fees", "Fees", inCurrency],
  ["ggr", "GGR", inCurrency],
  ["voided", "Voided"],
];
const GGR_NOTE =
  "GGR is the casino's revenue: stakes − returns where the house banks; at player-banked tables (banker: Player) the stakes and returns are the players' between themselves and GGR is the casino's fee.";

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
    series.push({ label: `GGR ${line}`, stroke: mode === "real" ? "#f2c94c" : "#7db7ff", width: 2, scale: "money" });
    data.push(days.map((d) => (byDay.has(d) ? byDay.get(d).rounds : 0)));
    series.push({ label: `rounds ${line}`, stroke: mode === "real" ? "#c9962b" : "#62d98b", dash: [6, 4], scale: "rounds" });
  }
  const holder = h("div", { class: "chart", role: "img", "aria-label": "GGR and rounds per day" });
  if (data.length === 1) return holder;
  const axis = { stroke: "#b9c2b8", grid: { stroke: "#34493e" }, ticks: { stroke: "#34493e" } };
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
          axis,
          { ...axis, scale: "money", label: "GGR" },
          { ...axis, scale: "rounds", side: 1, label: "rounds", grid: { show: false } },
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
      h("h3", { text: `Calls of ${round}` }),
      table(found.operator_calls, [
        ["call", "Call"],
        ["attempt", "Attempt"],
        ["sent", "Sent"],
        ["answered", "Answered"],
        ["http_status", "HTTP"],
        ["status", "Status"],
        ["error", "Error"],
      ]),
    );
  };
  const button = (row) => {
    const open = h("button", { class: "btn small", type: "button", text: "Calls" });
    open.addEventListener("click", () => showCalls(row.round));
    return open;
  };
  return panel(
    "Rounds on operators' wallets still to finish",
    "operators/rounds",
    table(rows, [
      ["round", "Round"],
      ["operator", "Operator"],
      ["player", "Player"],
      ["state", "State"],
      ["stake", "Stake", (v, row) => minor(v, row.currency)],
      ["win", "Win", (v, row) => minor(v, row.currency)],
      ["attempts", "Attempt"],
      ["calls", "Calls sent"],
      ["created", "Created"],
      ["next_attempt", "Next attempt"],
      [button, ""],
    ]),
    calls,
  );
}

export async function show(view, staff) {
  const from = h("input", { type: "date", name: "from", "aria-label": "From" });
  const to = h("input", { type: "date", name: "to", "aria-label": "To" });
  const period = h(
    "select",
    { name: "period", "aria-label": "RTP period" },
    ...["day", "month", "life"].map((p) =>
      h("option", { value: p, text: p === "day" ? "today" : p === "month" ? "month to date" : "life to date", selected: p === "month" }),
    ),
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
    fill(
      body,
      panel(
        "GGR and rounds per day",
        `reports/ggr?by=day${q}`,
        h("p", { class: "muted", text: GGR_NOTE }),
        ggrChart(byDay["ggr-by-day"], first, to.value || today),
        table(byDay["ggr-by-day"], [["day", "Day"], ...GGR_COLUMNS], null, { figures: true }),
      ),
      // Tables of many columns: side by side only where both have room for every column.
      h(
        "div",
        { class: "office-grid office-figures" },
        panel(
          "By table",
          `reports/ggr?by=table${q}`,
          table(byTable["ggr-by-table"], [["table", "Table"], ...GGR_COLUMNS], null, { figures: true }),
        ),
        panel(
          "By bet (rounds: bets placed; fee: the casino's fees at player-banked tables)",
          `reports/ggr?by=bet${q}`,
          table(byBet["ggr-by-bet"], [["bet", "Bet"], ...GGR_COLUMNS], null, { figures: true }),
        ),
        panel("By mode and currency", `reports/ggr?by=mode${q}`, table(byMode["ggr-by-mode"], GGR_COLUMNS, null, { figures: true })),
      ),
      panel(
        "Liability",
        "reports/liability",
        table(
          liability.liability,
          [
            ["mode", "Mode"],
            ["currency", "Currency"],
            ["balances", "Players' balances", inCurrency],
            ["withdrawals_pending", "Withdrawals reserved", inCurrency],
            ["deposits_pending", "Deposits pending", inCurrency],
            ["in_play", "Held at seats", inCurrency],
          ],
          null,
          { figures: true },
        ),
      ),
      panel(
        `RTP actual against theoretical (${alarms} alarm${alarms === 1 ? "" : "s"})`,
        `reports/rtp?period=${period.value}`,
        h("p", {
          class: "muted",
          text: "Band: theoretical ± 3 standard deviations of the actual for the stakes played (docs/back-office.md). The bets the house covers only: player-banked tables are left out (a player covers their bets; the casino's revenue there is its fee, in GGR).",
        }),
        table(
          rtpRows,
          [
            ["table", "Table"],
            ["bet", "Bet"],
            ["mode", "Mode"],
            ["currency", "Currency"],
            ["bets", "Bets"],
            ["stake", "Stakes", inCurrency],
            ["returned", "Returns", inCurrency],
            ["actual", "Actual", pct],
            ["theoretical", "Theoretical", pct],
            ["low", "Band low", pct],
            ["high", "Band high", pct],
            ["alarm", "Alarm", (a) => (a ? "ALARM" : "")],
          ],
          (row) => (row.alarm ? "alarm" : null),
          { figures: true },
        ),
      ),
      h(
        "div",
        { class: "office-grid" },
        panel(
          "Large wins",
          "reports/events/large_win",
          table(wins.large_win, [
            ["time", "Time"],
            ["subject", "Round"],
            ["actor", "Player"],
            ["table", "Table"],
            ["stake", "Stake", inCurrency],
            ["returned", "Returned", inCurrency],
          ]),
        ),
        panel(
          "Voided rounds",
          "reports/events/void",
          table(voids.void, [
            ["time", "Time"],
            ["subject", "Round"],
            ["actor", "By"],
            ["mode", "Mode"],
            ["stake", "Stake", inCurrency],
            ["returned", "Returned", inCurrency],
          ]),
        ),
      ),
      operatorRounds(unfinished.operator_rounds),
    );
  };
  const controls = h(
    "form",
    { class: "toolbar panel" },
    h("label", null, "From", from),
    h("label", null, "To", to),
    h("label", null, "RTP period", period),
    h("button", { class: "btn", type: "submit", text: "Show" }),
  );
  controls.addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
  fill(view, h("h1", { text: `Reports${staff.role === "viewer" ? " (read only)" : ""}` }), controls, body);
  await load();
}
