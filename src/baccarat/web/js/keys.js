// Keyboard shortcuts of the table and the seat: a key for each common action, told to
// assistive technology (aria-keyshortcuts on the control) and listed on the help page. The
// single keys can be turned off there (WCAG 2.1.4: a speech user's words, or a stray key,
// would otherwise set them off); Escape (NEW GAME) and the controls' own keys always work.

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
 * What a key press asks for: {action}, {spot} or {chip: index}, or null (not a shortcut, the
 * shortcuts are off, or the key is meant for a field, the header or a dialog).
 */
export function shortcutOf(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return null;
  const target = event.target;
  if (target && target.closest && target.closest("input, select, textarea, [contenteditable], .topbar, dialog")) return null;
  if (document.querySelector("dialog[open]")) return null;
  if (event.key === "Escape") return { action: "new" };
  if (!shortcutsOn() || event.key.length !== 1) return null;
  if (/^[1-9]$/.test(event.key)) return event.shiftKey ? null : { chip: Number(event.key) - 1 };
  const pressed = `${event.shiftKey ? "Shift+" : ""}${event.key.toUpperCase()}`;
  for (const [name, key] of Object.entries(KEYS)) {
    if (key === pressed) return SPOTS.has(name) ? { spot: name } : { action: name };
  }
  return null;
}
