// Scoreboards ("roads") as live tables draw them, from the server's answer
// (GET /api/tables/{id}/roads): bead plate, big road, big eye boy, small road, cockroach pig,
// the "ask" preview and the statistics. The server computes every road (core/roads.py); this
// module only draws cells at the grid positions it was given.

import * as api from "./api.js";
import { fill, h } from "./dom.js";
import { locale, t } from "./i18n.js";

const DERIVED = ["big_eye_boy", "small_road", "cockroach_pig"];
const MIN_COLS = { bead: 8, big_road: 48, big_eye_boy: 16, small_road: 16, cockroach_pig: 16 };
const WINNER = { B: "banker", P: "player", T: "tie" };

// The last answer per table and mode: a redraw (language change) shows it at once.
const cache = new Map();
let latest = 0;

// A road that scrolls (more columns than its width shows) takes the keyboard's focus, so
// that the arrow keys scroll it too; it gives it back when it fits again (a wider window).
function keyboardScroll(road) {
  if (road.scrollWidth > road.clientWidth + 1) road.tabIndex = 0;
  else road.removeAttribute("tabindex");
}
const resized =
  typeof ResizeObserver === "undefined"
    ? null
    : new ResizeObserver((entries) => {
        for (const entry of entries) keyboardScroll(entry.target);
      });

/** A road's grid: `cells` are elements with a col/row; columns at least `min`. */
function grid(name, cells, cols, small) {
  const width = Math.max(cols, MIN_COLS[name]);
  const road = h(
    "div",
    {
      class: `road-grid${small ? " small" : ""}`,
      "data-road": name,
      style: `--cols:${width}`,
      role: "img",
      "aria-label": `${t(`roads.${name}`)}: ${t("roads.entries", { n: cells.length })}`,
    },
    cells,
  );
  return road;
}

function place(cell, element) {
  element.style.gridColumn = String(cell.col + 1);
  element.style.gridRow = String(cell.row + 1);
  return element;
}

function at(cell, element) {
  element.setAttribute("data-cell", "");
  return place(cell, element);
}

function pairs(cell) {
  return [cell.banker_pair ? h("i", { class: "pair pair-banker" }) : null, cell.player_pair ? h("i", { class: "pair pair-player" }) : null];
}

function beadCell(cell) {
  const who = WINNER[cell.winner];
  return at(
    cell,
    h(
      "span",
      { class: `bead bead-${who}${cell.natural ? " natural" : ""}`, "data-winner": cell.winner },
      t(`roads.letter_${who}`),
      pairs(cell),
    ),
  );
}

function bigCell(cell) {
  const who = WINNER[cell.winner];
  const ties = cell.ties || 0;
  return at(
    cell,
    h(
      "span",
      { class: `big big-${who}${ties ? " has-tie" : ""}`, "data-winner": cell.winner, "data-ties": ties },
      ties ? h("i", { class: "tie-slash" }) : null,
      ties > 1 ? h("b", { class: "tie-count", text: String(ties) }) : null,
      pairs(cell),
    ),
  );
}

function derivedCell(name, cell) {
  return at(cell, h("span", { class: `mark mark-${name} mark-${cell.colour}`, "data-colour": cell.colour }));
}

function cols(cells) {
  return cells.reduce((most, cell) => Math.max(most, cell.col + 1), 0);
}

/** Show (or, with `who` null, hide) where the next result would draw on every road. */
function flashAsk(container, cells, who) {
  for (const ghost of container.querySelectorAll(".ghost")) ghost.remove();
  if (!who || !cells || !cells[who]) return;
  const big = container.querySelector('[data-road="big_road"]');
  big.append(place(cells[who].big_road, h("span", { class: `big big-${who} ghost`, "aria-hidden": "true" })));
  for (const name of DERIVED) {
    const cell = cells[who][name];
    const road = container.querySelector(`[data-road="${name}"]`);
    if (cell) road.append(place(cell, h("span", { class: `mark mark-${name} mark-${cell.colour} ghost`, "aria-hidden": "true" })));
  }
}

function askView(container, ask, cells) {
  const describe = (who) =>
    DERIVED.map((name) => {
      const colour = ask && ask[who] ? ask[who][name] : null;
      return `${t(`roads.${name}`)} ${colour ? t(`roads.${colour}`) : "\u2013"}`;
    }).join(", ");
  return ["banker", "player"].map((who) =>
    h(
      "button",
      {
        type: "button",
        class: `ask ask-${who}`,
        "data-ask": who,
        "aria-label": `${t(`roads.ask_${who}`)} ${describe(who)}`,
        onpointerenter: () => flashAsk(container, cells, who),
        onpointerleave: () => flashAsk(container, cells, null),
        onfocus: () => flashAsk(container, cells, who),
        onblur: () => flashAsk(container, cells, null),
        onclick: () => flashAsk(container, cells, who),
      },
      h("span", { class: `ask-label big-${who}`, text: t(`roads.ask_${who}`) }),
      DERIVED.map((name) => {
        const colour = ask && ask[who] ? ask[who][name] : null;
        return h("span", {
          class: `mark mark-${name} ${colour ? `mark-${colour}` : "mark-none"}`,
          "data-ask-road": name,
          "data-colour": colour || "none",
          title: `${t(`roads.${name}`)}: ${colour ? t(`roads.${colour}`) : "\u2013"}`,
        });
      }),
    ),
  );
}

const share = (value) => new Intl.NumberFormat(locale(), { style: "percent", maximumFractionDigits: 0 }).format(value);

function statsView(stats, data) {
  const line = (who) =>
    h(
      "li",
      { class: `stat stat-${who}`, "data-stat": who },
      h("span", { class: `dot big-${who}`, text: t(`roads.letter_${who}`) }),
      ` ${stats.counts[who]} `,
      h("span", { class: "muted", text: stats.rounds ? share(stats.shares[who]) : "" }),
    );
  const scope = data.scope === "shoe" ? t("roads.scope_shoe") : t("roads.scope_recent", { n: data.limit });
  return h(
    "ul",
    { class: "road-stats", "data-stats": "" },
    h("li", { class: "muted", text: `${scope}: ${t("roads.rounds", { n: stats.rounds })}` }),
    ["banker", "player", "tie"].map(line),
    h("li", {
      text: t("roads.pairs", { player: stats.player_pairs, banker: stats.banker_pairs, naturals: stats.naturals }),
    }),
    h("li", {
      text: t("roads.streaks", {
        banker: stats.longest_streak.banker,
        player: stats.longest_streak.player,
        tie: stats.longest_streak.tie,
      }),
    }),
  );
}

function panel(name, ...children) {
  return h("div", { class: `road-panel panel-${name}` }, h("span", { class: "road-title", text: t(`roads.${name}`) }), children);
}

/** Draw the roads of `data` (the server's answer) into `container`. */
export function renderRoads(container, data) {
  const roads = data.roads;
  const big = roads.big_road.map(bigCell);
  if (!big.length && roads.leading_ties) {
    big.push(at({ col: 0, row: 0 }, h("span", { class: "big has-tie", "data-ties": roads.leading_ties }, h("i", { class: "tie-slash" }))));
  }
  const derived = Object.fromEntries(
    DERIVED.map((name) => [
      name,
      grid(
        name,
        roads[name].map((cell) => derivedCell(name, cell)),
        cols(roads[name]),
        true,
      ),
    ]),
  );
  fill(
    container,
    panel("bead", grid("bead", roads.bead.map(beadCell), cols(roads.bead))),
    panel("big_road", grid("big_road", big, cols(roads.big_road))),
    h("div", { class: "road-stack" }, panel("big_eye_boy", derived.big_eye_boy), panel("small_road", derived.small_road)),
    h(
      "div",
      { class: "road-stack" },
      panel("cockroach_pig", derived.cockroach_pig),
      h("div", { class: "road-panel panel-ask", role: "group", "aria-label": t("roads.ask") }, askView(container, data.ask, roads.ask)),
    ),
    h("div", { class: "road-panel panel-stats" }, statsView(data.stats, data)),
  );
  container.dataset.rounds = String(data.stats.rounds);
  // The newest columns are at the right: keep the rightmost mark in view, with a spare column.
  if (resized) resized.disconnect();
  for (const road of container.querySelectorAll(".road-grid")) {
    let right = 0;
    for (const cell of road.children) right = Math.max(right, cell.offsetLeft + 2 * cell.offsetWidth);
    road.scrollLeft = Math.max(0, right - road.clientWidth);
    keyboardScroll(road);
    if (resized) resized.observe(road);
  }
}

/** Fetch the caller's roads at a table and draw them (the cached ones first, at once). */
export async function showRoads(container, tableId, mode) {
  if (!container) return;
  container.classList.add("roads");
  container.setAttribute("aria-label", t("roads.title"));
  const key = `${tableId}/${mode}`;
  if (cache.has(key)) renderRoads(container, cache.get(key));
  const ticket = ++latest;
  try {
    const data = await api.get(`/api/tables/${encodeURIComponent(tableId)}/roads`, { mode });
    cache.set(key, data);
    if (ticket === latest && container.isConnected) renderRoads(container, data);
  } catch {
    // The scoreboard is an aid: the table plays on without it; say so quietly.
    if (ticket === latest && !cache.has(key)) fill(container, h("p", { class: "muted", text: t("roads.unavailable") }));
  }
}
