// The squeeze: face-down cards that the player peels by dragging (mouse, touch or pen:
// pointer events), or turns with a tap, Enter or Space; REVEAL ALL turns the rest. The
// round was settled by the server at DEAL: this only decides when the player sees it.

import { announce, h } from "./dom.js";
import { t } from "./i18n.js";
import { allows } from "./profile.js";
import { sounds } from "./sound.js";

const TAP = 6; // pixels: a smaller movement is a tap
const PEELED = 0.55; // released beyond this share of the card, it turns over

/**
 * Resolve when every card of `nodes` (face down, on the felt `el`) is face up. The keyboard
 * starts on the first card; a card turned by the key that had the focus hands it on to the
 * next face-down card, and says what it was. When the last is turned, the caller puts the
 * focus where the next action is.
 */
export function squeeze(el, nodes) {
  return new Promise((resolve) => {
    const felt = el.querySelector(".felt");
    let left = nodes.length;
    const bar = h(
      "div",
      { class: "squeeze-bar", "data-squeeze": "" },
      h("p", { text: t("squeeze.hint") }),
      // Where the profile lets nothing shorten the time to the result, each card is turned.
      allows("fast_reveal")
        ? h("button", {
            type: "button",
            class: "btn small primary",
            "data-action": "reveal-all",
            text: t("squeeze.reveal_all"),
            onclick: () => nodes.forEach(open),
          })
        : null,
    );
    felt.append(bar);
    function open(node) {
      if (!node.classList.contains("down")) return;
      const had = document.activeElement === node;
      node.classList.remove("down", "squeeze");
      node.style.removeProperty("--peel");
      node.removeAttribute("tabindex");
      node.setAttribute("role", "img");
      node.setAttribute("aria-label", node.dataset.label);
      sounds.card();
      left -= 1;
      const hand = node.closest("[data-cards]");
      if (had && hand) announce(t("announce.card", { hand: t(`hand.${hand.dataset.cards}`), card: node.dataset.label }));
      const after = nodes.slice(nodes.indexOf(node) + 1).concat(nodes);
      const next = after.find((other) => other.classList.contains("down"));
      if (had && next) next.focus({ preventScroll: true });
      if (left === 0) {
        bar.remove();
        resolve();
      }
    }
    for (const node of nodes) {
      node.classList.add("squeeze");
      node.tabIndex = 0;
      node.setAttribute("role", "button");
      node.dataset.label = node.getAttribute("aria-label");
      node.setAttribute("aria-label", t("squeeze.card"));
      node.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          open(node);
        }
      });
      peelable(node, () => open(node));
    }
    nodes[0].focus({ preventScroll: true });
  });
}

/** Drag to peel: the share of the card dragged (along its long side) shows its face. */
function peelable(node, turned) {
  let start = null;
  node.addEventListener("pointerdown", (event) => {
    if (!node.classList.contains("down")) return;
    event.preventDefault();
    node.setPointerCapture(event.pointerId);
    start = { x: event.clientX, y: event.clientY, size: Math.max(node.offsetHeight, node.offsetWidth) };
  });
  node.addEventListener("pointermove", (event) => {
    if (!start) return;
    const moved = Math.max(Math.abs(event.clientX - start.x), Math.abs(event.clientY - start.y));
    node.style.setProperty("--peel", String(Math.min(1, moved / start.size)));
  });
  const release = (event) => {
    if (!start) return;
    const moved = Math.max(Math.abs(event.clientX - start.x), Math.abs(event.clientY - start.y));
    start = null;
    if (moved < TAP || moved / Math.max(node.offsetHeight, node.offsetWidth) >= PEELED) turned();
    else node.style.setProperty("--peel", "0");
  };
  node.addEventListener("pointerup", release);
  node.addEventListener("pointercancel", () => {
    start = null;
    node.style.setProperty("--peel", "0");
  });
}
