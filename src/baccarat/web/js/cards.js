// Playing cards: "Ah", "Td", "9s" -> a card element; baccarat values for interim scores
// (those of fair.js, the verifier's, so that the pages score cards one way).

import { h } from "./dom.js";
import fair from "./fair.js";
import { t } from "./i18n.js";

export const { cardValue, score } = fair;

const SUITS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

export function parseCard(text) {
  const rank = text.slice(0, -1).toUpperCase();
  const suit = text.slice(-1).toLowerCase();
  return { rank: rank === "10" ? "T" : rank, suit };
}

export function cardLabel(text) {
  const { rank, suit } = parseCard(text);
  const name = RANK_NAMES[rank] ? t(`card.${RANK_NAMES[rank]}`) : rank;
  return t("card.label", { rank: name, suit: t(`suit.${suit}`) });
}

/** A card: its face, and a back that shows while it is face down (extra "down"). */
export function cardElement(text, extra = "") {
  const { rank, suit } = parseCard(text);
  const face = rank === "T" ? "10" : rank;
  const red = suit === "h" || suit === "d";
  return h(
    "div",
    {
      class: `card ${red ? "red" : "black"} ${extra}`.trim(),
      "data-card": text,
      role: "img",
      "aria-label": cardLabel(text),
    },
    h(
      "span",
      { class: "face", "aria-hidden": "true" },
      h("span", { class: "corner" }, h("b", { text: face }), SUITS[suit]),
      h("span", { class: "pip", text: SUITS[suit] }),
      h("span", { class: "corner flip" }, h("b", { text: face }), SUITS[suit]),
    ),
    h("span", { class: "back", "aria-hidden": "true" }),
  );
}
