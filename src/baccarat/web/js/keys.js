// Keyboard shortcuts of the felts (the house table, a shared table, a seat): a key for each
// common action, told to assistive technology (aria-keyshortcuts on its control, written by
// keyOf from the one map below) and listed on the help page. A key presses the control whose
// aria-keyshortcuts names it (listenKeys), so a key does what its button does, where and when
// the button may be pressed, and no key does what no control promises. The single keys can be
// turned off on the help page (WCAG 2.1.4: a speech user's words, or a stray key, would
// otherwise set them off); Escape (NEW GAME) and the controls' own keys always work.

import { announce } from "./dom.js";
import { t } from "./i18n.js";

const STORE = "baccarat.shortcuts";

// What each key does: a control (data-action), a spot (a chip on it) or the rack's chips.
const KEYS = {
  deal: "D",
  rebet: "R",
  "rebet-deal": "Shift+R",
  double: "X",
  "double-deal": "Shift+X",
  undo: "U",
  clear: "C",
  new: "N",
  approve: "A",
  player: "P",
  banker: "B",
  tie: "T",
};
const SPOTS = new Set(["player", "banker", "tie"]);
// The buttons that change the bets on the felt: a key that presses one says the felt's total.
const BETTING = new Set(["undo", "clear", "double", "rebet"]);

export const shortcutsOn = () => localStorage.getItem(STORE) !== "off";
export function setShortcuts(on) {
  localStorage.setItem(STORE, on ? "on" : "off");
}

/** The aria-keyshortcuts of a control ("chip1" to "chip9": the rack's chips), or null. */
export function keyOf(name) {
  if (!shortcutsOn()) return name === "new" ? "Escape" : null;
  const chip = /^chip(\d)$/.exec(name);
  if (chip) return chip[1];
  if (name === "new") return `${KEYS.new} Escape`;
  return KEYS[name] || null;
}

/** The help page's list: [keys, what they do as {action} | {spot} | {chips}]. */
export function shortcutList() {
  return [
    ["1 \u2013 9", { chips: true }],
    ...Object.entries(KEYS).map(([name, key]) => [key, SPOTS.has(name) ? { spot: name } : { action: name }]),
  ];
}

/**
 * The key a press makes as aria-keyshortcuts writes it ("3", "B", "Shift+R", "Escape"), or
 * null: a key with Ctrl, Alt or Meta, held down, or meant for a field, the header or a dialog.
 */
function keyPressed(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return null;
  const target = event.target;
  if (target && target.closest && target.closest("input, select, textarea, [contenteditable], .topbar, dialog")) return null;
  if (document.querySelector("dialog[open]")) return null;
  if (event.key === "Escape") return "Escape";
  if (event.key.trim().length !== 1 || (event.shiftKey && /^\d$/.test(event.key))) return null;
  return `${event.shiftKey ? "Shift+" : ""}${event.key.toUpperCase()}`;
}

/** What a key that pressed `control` did away from the focus, in a sentence (or null). */
function echo(root, control) {
  if (control.dataset.chip) return control.getAttribute("aria-label");
  const spot = control.dataset.spot;
  if (spot) return t("announce.stake", { bet: t(`bet.${spot}`), amount: control.querySelector(".stack-total").textContent });
  if (BETTING.has(control.dataset.action)) return `${t("meter.bet")}: ${root.querySelector('[data-meter="bet"]').textContent}`;
  return null;
}

/**
 * A felt's keyboard, until the function it returns is called: a shortcut presses the control
 * of the view (`view()`: its element, while it is on the page) whose aria-keyshortcuts names
 * the key, if the control shows and is on (not disabled, nor aria-disabled: it keeps the
 * focus while off). What the key did away from the focus is said (announce()): the chip
 * chosen, a spot's stake, the felt's total after UNDO, CLEAR, DOUBLE or REBET; with `quiet`
 * the view says what came of the bets itself (a shared table: the bets it took), and only
 * the chip chosen is said here. `allow(key)` may leave a key alone (the house table's Escape
 * over bets); `refused(control)` hears of a key whose control is off (to say why).
 */
export function listenKeys(view, { quiet = false, allow = () => true, refused = () => {} } = {}) {
  const onKey = (event) => {
    const root = view();
    const key = root && root.isConnected ? keyPressed(event) : null;
    if (!key || !allow(key)) return;
    const control = [...root.querySelectorAll("[aria-keyshortcuts]")].find((c) =>
      c.getAttribute("aria-keyshortcuts").split(" ").includes(key),
    );
    if (!control || control.closest("[hidden]")) return;
    event.preventDefault();
    if (control.disabled || control.getAttribute("aria-disabled") === "true") {
      refused(control);
      return;
    }
    control.click();
    const said = quiet && !control.dataset.chip ? null : echo(root, control);
    if (said) announce(said);
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
