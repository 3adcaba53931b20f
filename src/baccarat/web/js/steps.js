// A recalled round's deal step by step (GET /api/history/recall's `steps`, the back office's
// player card): each card in the order it was dealt, with its hand's score after it. The
// player's recall page and the back office show it alike.

import { cardLabel } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** One step as a sentence: "Player: 9 of spades, score 9". */
export const stepText = (step) => t("recall.step", { hand: t(`bet.${step.hand}`), card: cardLabel(step.card), score: step.score });

/** The step just dealt, numbered: "Card 3 of 5. Player: 9 of spades, score 9". */
export const stepNow = (step, of) => t("recall.now", { n: step.step, of, step: stepText(step) });

/** The round's steps as an ordered list, the first `upTo` of them (all by default). */
export const stepsList = (round, upTo = round.steps.length) =>
  h(
    "ol",
    { class: "recall-steps", "data-steps": round.id },
    round.steps.slice(0, upTo).map((step) => h("li", { "data-step": step.step, text: stepText(step) })),
  );
