// The cut of a new shoe (seed 001): click the shoe where to cut, or choose with the slider.

import { h } from "./dom.js";
import { number, t } from "./i18n.js";

export function openCut(size, onCut) {
  const start = Math.floor(size / 2);
  const output = h("output", { class: "cut-pos", for: "cut-range" });
  const marker = h("span", { class: "cut-marker", "aria-hidden": "true" });
  const range = h("input", {
    id: "cut-range",
    type: "range",
    min: 1,
    max: size - 1,
    step: 1,
    value: start,
    "aria-label": t("shoe.cut_position"),
  });
  const show = () => {
    const value = Number(range.value);
    output.textContent = t("shoe.cut_at", { n: number(value), total: number(size) });
    marker.style.left = `${(100 * value) / size}%`;
    range.setAttribute("aria-valuetext", output.textContent);
  };
  range.addEventListener("input", show);
  const bar = h(
    "div",
    {
      class: "shoe-bar",
      "data-shoe-bar": "",
      title: t("shoe.click_to_cut"),
      onclick: (event) => {
        const box = bar.getBoundingClientRect();
        const fraction = (event.clientX - box.left) / box.width;
        const position = Math.min(size - 1, Math.max(1, Math.round(fraction * size)));
        range.value = String(position);
        show();
        onCut(position);
      },
    },
    marker,
  );
  show();
  return h(
    "div",
    { class: "cut-panel", role: "group", "aria-labelledby": "cut-title" },
    h("h2", { id: "cut-title", text: t("shoe.cut_title") }),
    h("p", { text: t("shoe.cut_help") }),
    bar,
    h("div", { class: "row" }, range, output),
    h("button", {
      class: "btn primary",
      id: "cut-button",
      text: t("shoe.cut_button"),
      onclick: () => onCut(Number(range.value)),
    }),
  );
}

/** The shoe's gauge on a cut-shoe table: the cards left (or the cut to make), as a bar. */
export function shoeGauge(shoe, size, cutDue) {
  const left = shoe ? (shoe.cards_left ?? shoe.remaining ?? null) : null;
  return [
    h("div", { class: "shoe-icon", "aria-hidden": "true" }),
    h("p", {
      class: "shoe-left",
      "data-remaining": left ?? "",
      text: left == null ? t("shoe.unknown") : cutDue ? t("shoe.cut_title") : t("shoe.left", { n: left, total: size }),
    }),
    h(
      "div",
      { class: "shoe-gauge", "aria-hidden": "true" },
      h("span", { style: `width:${left == null ? 0 : Math.round((100 * left) / size)}%` }),
    ),
  ];
}
