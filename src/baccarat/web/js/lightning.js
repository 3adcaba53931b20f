// Multiplier baccarat on the felt (docs/multiplier.md): the fee taken with each stake, the
// coup's multiplier cards in a strip above the hands and on the cards as they are dealt, and
// what a won bet's multiplier made of it. The server draws the cards and settles the round;
// the page only shows what it says.

import { cardElement, lightningLabel } from "./cards.js";
import { fill, h } from "./dom.js";
import fair from "./fair.js";
import { t } from "./i18n.js";

/** Whether the table deals multiplier baccarat (its rules publish the multipliers' terms). */
export const isMultiplier = (tbl) => Boolean(tbl && tbl.rules && tbl.rules.multipliers);

/** The fee a stake takes with it at the table (0 elsewhere): the verifier's one rule. */
export const feeOf = (tbl, stake) => (isMultiplier(tbl) && stake > 0 ? fair.feeOf(tbl.rules, stake) : 0);

/** What bets ({bet: cents}) take from the balance: their stakes and their fees. */
export const wageredOf = (tbl, amounts) => Object.values(amounts || {}).reduce((sum, stake) => sum + stake + feeOf(tbl, stake), 0);

/** "×3" */
export const times = (n) => `\u00d7${n}`;

/** A round's multiplier cards by card ("Ah" -> 3). */
export const multipliersOf = (round) => new Map(((round && round.lightning) || []).map((one) => [one.card, one.multiplier]));

/** The sentence said once when the multiplier cards show. */
export const lightningText = (cards) =>
  t("lightning.said", { cards: cards.map((one) => lightningLabel(one.card, one.multiplier)).join(", ") });

/**
 * The strip above the hands: the coup's multiplier cards, or before they are drawn when they
 * will be (`when`: "deal" at a house table, "close" at a shared one). Not a live region: the
 * cards are said once, in a sentence (lightningText), when they show.
 */
export const stripView = (when) =>
  h(
    "section",
    { class: "lightning-strip", "data-lightning": "", "aria-labelledby": "lightning-title" },
    h("h2", { class: "lightning-title", id: "lightning-title", text: t("lightning.title") }),
    h("p", { class: "lightning-when", "data-lightning-when": "", text: t(`lightning.at_${when}`) }),
    h("ul", { class: "lightning-cards", "data-lightning-cards": "" }),
  );

/** Show the coup's multiplier cards in the strip (none: when they will be drawn). */
export function showStrip(el, cards) {
  const strip = el && el.querySelector("[data-lightning]");
  if (!strip) return;
  const list = cards || [];
  fill(
    strip.querySelector("[data-lightning-cards]"),
    ...list.map((one) =>
      h(
        "li",
        { class: "lightning-item", "data-lightning-card": one.card },
        cardElement(one.card, "mini", one.multiplier),
        h("span", { class: "lightning-times", "aria-hidden": "true", text: times(one.multiplier) }),
      ),
    ),
  );
  strip.querySelector("[data-lightning-when]").hidden = list.length > 0;
  strip.dataset.drawn = String(list.length > 0);
}
