// Pieces of the felt that the casino table and the player-banked seat draw alike.

import { h } from "./dom.js";
import { t } from "./i18n.js";

// A hand: its WIN/LOSE marker, its name, its x:y score and its cards.
export const handView = (name) =>
  h(
    "section",
    { class: `hand hand-${name}`, "data-hand": name, "aria-label": t(`hand.${name}`) },
    h("div", { class: "hand-marker", "data-marker": name, "aria-live": "polite" }),
    h("h2", { class: "hand-title", text: t(`spot.${name}`) }),
    h(
      "div",
      { class: "hand-row" },
      h("output", { class: "score", "data-score": name, "aria-label": t("table.score") }),
      h("div", { class: "cards", "data-cards": name }),
    ),
  );

// The BET, BALANCE, WIN and LAST ROUND displays.
const meterView = (name) =>
  h(
    "div",
    { class: `meter meter-${name}` },
    h("span", { class: "meter-label", text: t(`meter.${name}`) }),
    h("output", { class: "meter-value", "data-meter": name }),
  );

export const metersView = () =>
  h("div", { class: "meters" }, ["bet", "balance", "win", "last"].map(meterView));

// The links in the table's head: its rules, the cashier, and any more given.
export const headLinks = (tbl, ...more) =>
  h(
    "div",
    { class: "head-links" },
    h("a", { class: "btn small icon", href: `#/rules/${encodeURIComponent(tbl.id)}`, "aria-label": t("nav.rules"), title: t("nav.rules"), text: "?" }),
    h("a", { class: "btn small icon", href: "#/cashier", "aria-label": t("nav.cashier"), title: t("nav.cashier"), text: "$" }),
    ...more,
  );
