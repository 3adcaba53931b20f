// Revealing a dealt round on the felt: cards in deal order with a short animation, each
// hand's x:y score, WIN/LOSE markers over the hands and on each bet, and a sound.

import { cardElement, score } from "./cards.js";
import { fill, sleep } from "./dom.js";
import { money, t } from "./i18n.js";
import { sounds } from "./sound.js";

/** Cards in deal order (P, B, P, B, then third cards), then scores and markers. */
export async function revealRound(el, round, animate) {
  const $ = (selector) => el.querySelector(selector);
  const p = round.player.cards;
  const b = round.banker.cards;
  const order = [
    ["player", p[0], 0],
    ["banker", b[0], 0],
    ["player", p[1], 1],
    ["banker", b[1], 1],
  ];
  if (p[2]) order.push(["player", p[2], 2]);
  if (b[2]) order.push(["banker", b[2], 2]);
  const delay = animate ? 420 : 0;
  for (const name of ["player", "banker"]) fill($(`[data-cards="${name}"]`));
  for (const [i, [name, card, index]] of order.entries()) {
    const el = cardElement(card, `${animate ? "deal-in" : ""} ${index === 2 ? "third" : ""}`);
    el.style.setProperty("--from", name === "player" ? "1" : "-1");
    $(`[data-cards="${name}"]`).append(el);
    if (animate) sounds.card();
    if (i === 3) {
      for (const side of ["player", "banker"]) {
        const cards = side === "player" ? p : b;
        $(`[data-score="${side}"]`).textContent = String(score(cards.slice(0, 2)));
      }
    }
    if (delay) await sleep(index === 2 ? delay + 200 : delay);
  }
  for (const [name, hand] of [
    ["player", round.player],
    ["banker", round.banker],
  ]) {
    const [x, y] = hand.scores || [score(hand.cards.slice(0, 2)), score(hand.cards)];
    $(`[data-score="${name}"]`).textContent = `${x}:${y}`;
    const marker = $(`[data-marker="${name}"]`);
    const result = round.winner === "tie" ? "tie" : round.winner === name ? "win" : "lose";
    marker.dataset.result = result;
    marker.textContent = t(`marker.${result}`);
  }
  $(".felt").dataset.winner = round.winner;
  let best = "lose";
  for (const [name, bet] of Object.entries(round.bets || {})) {
    const marker = $(`.wrap-${name} .bet-marker`);
    if (!marker) continue;
    marker.dataset.result = bet.result;
    marker.textContent =
      bet.result === "win"
        ? `${t("marker.win")} ${money(bet.returned)}`
        : t(`marker.${bet.result}`);
    if (bet.result === "win") best = "win";
    else if (bet.result === "push" && best !== "win") best = "push";
  }
  if (animate) sounds[best]();
}
