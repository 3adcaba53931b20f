// The player's reveal preferences: squeeze the cards, or a fast reveal. They are choices of
// this browser (remembered locally), not game state: the round is the server's either way.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { allows } from "./profile.js";

const KEYS = { squeeze: "baccarat.squeeze", fast: "baccarat.fast" };

// What the jurisdiction profile must allow for an option to be offered (docs/jurisdictions.md:
// nothing may shorten the time to the result where the profile says so).
const NEEDS = { fast: "fast_reveal" };
const offered = (name) => !NEEDS[name] || allows(NEEDS[name]);

export const option = (name) => offered(name) && localStorage.getItem(KEYS[name]) === "on";

export function setOption(name, on) {
  localStorage.setItem(KEYS[name], on ? "on" : "off");
  // Squeeze and fast exclude each other: a squeeze is slow on purpose.
  const other = name === "squeeze" ? "fast" : "squeeze";
  if (on) localStorage.setItem(KEYS[other], "off");
}

/** Two toggles for the table's head: SQUEEZE and FAST (where the profile offers it). */
export function optionsView() {
  const toggles = ["squeeze", "fast"].filter(offered).map((name) =>
    h("button", {
      type: "button",
      class: "btn small toggle",
      "data-option": name,
      "aria-pressed": String(option(name)),
      title: t(`option.${name}_help`),
      text: t(`option.${name}`),
    }),
  );
  const sync = () => {
    for (const button of toggles) button.setAttribute("aria-pressed", String(option(button.dataset.option)));
  };
  for (const button of toggles) {
    button.addEventListener("click", () => {
      setOption(button.dataset.option, !option(button.dataset.option));
      sync();
    });
  }
  return h("div", { class: "options", role: "group", "aria-label": t("option.label") }, toggles);
}
