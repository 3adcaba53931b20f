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

/** A multiplier card's name with its multiplier (multiplier baccarat). */
export const lightningLabel = (text, multiplier) => t("lightning.card", { card: cardLabel(text), n: multiplier });

/**
 * A card: its face, and a back that shows while it is face down (extra "down"); a multiplier
 * card of the coup (`multiplier`, multiplier baccarat) is marked, its multiplier on its face.
 */
export function cardElement(text, extra = "", multiplier = null) {
  const { rank, suit } = parseCard(text);
  const face = rank === "T" ? "10" : rank;
  const red = suit === "h" || suit === "d";
  return h(
    "div",
    {
      class: `card ${red ? "red" : "black"} ${multiplier ? "lightning" : ""} ${extra}`.replace(/\s+/g, " ").trim(),
      "data-card": text,
      "data-multiplier": multiplier || null,
      role: "img",
      "aria-label": multiplier ? lightningLabel(text, multiplier) : cardLabel(text),
    },
    h(
      "span",
      { class: "face", "aria-hidden": "true" },
      h("span", { class: "corner" }, h("b", { text: face }), SUITS[suit]),
      h("span", { class: "pip", text: SUITS[suit] }),
      h("span", { class: "corner flip" }, h("b", { text: face }), SUITS[suit]),
      multiplier ? h("span", { class: "card-times", text: `\u00d7${multiplier}` }) : null,
    ),
    h("span", { class: "back", "aria-hidden": "true" }),
  );
}
