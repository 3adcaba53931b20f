// Reports: GGR and rounds per day (a chart), per table, bet and mode; RTP actual against
// theoretical with its band and alarm; liability; large wins and voids. Every table has
// its CSV download. All of it is read from the daily aggregates.

import { fill, h } from "../dom.js";
import * as api from "./api.js";
import { cents, panel, pct, table } from "./ui.js";

const GGR_COLUMNS = [
  ["mode", "Mode"],
  ["rounds", "Rounds"],
  ["stake", "Stakes", cents],
  ["returned", "Returns", cents],
  ["ggr", "GGR", cents],
  ["voided", "Voided"],
];

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
  for (const mode of ["fun", "real"]) {
    const byDay = new Map(rows.filter((r) => r.mode === mode).map((r) => [r.day, r]));
    if (!byDay.size) continue;
    data.push(days.map((d) => (byDay.has(d) ? byDay.get(d).ggr / 100 : 0)));
    series.push({ label: `GGR ${mode}`, stroke: mode === "real" ? "#f2c94c" : "#7db7ff", width: 2, scale: "money" });
    data.push(days.map((d) => (byDay.has(d) ? byDay.get(d).rounds : 0)));
    series.push({ label: `rounds ${mode}`, stroke: mode === "real" ? "#c9962b" : "#62d98b", dash: [6, 4], scale: "rounds" });
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

/** A panel of the grid that takes two of its columns when the screen has room for them. */
function wide(...args) {
  const shown = panel(...args);
  shown.classList.add("wide");
  return shown;
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
    const [byDay, byTable, byBet, byMode, rtp, liability, wins, voids] = await Promise.all([
      api.get(`reports/ggr?by=day${q}`),
      api.get(`reports/ggr?by=table${q}`),
      api.get(`reports/ggr?by=bet${q}`),
      api.get(`reports/ggr?by=mode${q}`),
      api.get(`reports/rtp?period=${period.value}`),
      api.get("reports/liability"),
      api.get("reports/events/large_win"),
      api.get("reports/events/void"),
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
        ggrChart(byDay["ggr-by-day"], first, to.value || today),
        table(byDay["ggr-by-day"], [["day", "Day"], ...GGR_COLUMNS], null, { figures: true }),
      ),
      h(
        "div",
        { class: "office-grid" },
        panel(
          "By table",
          `reports/ggr?by=table${q}`,
          table(byTable["ggr-by-table"], [["table", "Table"], ...GGR_COLUMNS], null, { figures: true }),
        ),
        panel(
          "By bet (rounds: bets placed)",
          `reports/ggr?by=bet${q}`,
          table(byBet["ggr-by-bet"], [["bet", "Bet"], ...GGR_COLUMNS], null, { figures: true }),
        ),
        panel("By mode (currency)", `reports/ggr?by=mode${q}`, table(byMode["ggr-by-mode"], GGR_COLUMNS, null, { figures: true })),
        wide(
          "Liability",
          "reports/liability",
          table(
            liability.liability,
            [
              ["mode", "Mode"],
              ["balances", "Players' balances", cents],
              ["withdrawals_pending", "Withdrawals reserved", cents],
              ["deposits_pending", "Deposits pending", cents],
              ["in_play", "Held at seats", cents],
            ],
            null,
            { figures: true },
          ),
        ),
      ),
      panel(
        `RTP actual against theoretical (${alarms} alarm${alarms === 1 ? "" : "s"})`,
        `reports/rtp?period=${period.value}`,
        h("p", {
          class: "muted",
          text: "Band: theoretical ± 3 standard deviations of the actual for the stakes played (docs/back-office.md).",
        }),
        table(
          rtpRows,
          [
            ["table", "Table"],
            ["bet", "Bet"],
            ["bets", "Bets"],
            ["stake", "Stakes", cents],
            ["returned", "Returns", cents],
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
            ["stake", "Stake", cents],
            ["returned", "Returned", cents],
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
            ["stake", "Stake", cents],
            ["returned", "Returned", cents],
          ]),
        ),
      ),
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
