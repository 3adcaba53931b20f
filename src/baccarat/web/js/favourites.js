// Favourite bets (docs/jurisdictions.md): up to five named bet layouts per kind of table,
// kept with the account (GET, PUT and DELETE /api/favourites/{kind}); a click puts one on
// the felt, where the table checks it as any bets. Offered where the profile allows them.

import * as api from "./api.js";
import { announce, fill, h } from "./dom.js";
import { errorText } from "./errors.js";
import { money, t } from "./i18n.js";
import { allows } from "./profile.js";

const STAR = "\u2605";

/**
 * The favourites of a table's head, or null where the profile has none: `current()` gives
 * the stakes on the felt ({bet: cents}), `place(stakes)` puts a layout there.
 */
export function favouritesView(tbl, { current, place }) {
  if (!allows("favourites")) return null;
  const kind = tbl.shared ? "shared" : "house";
  const path = (name = "") => `/api/favourites/${kind}${name ? `/${encodeURIComponent(name)}` : ""}`;
  const list = h("ul", { class: "favourite-list", "data-favourite-list": "" });
  const message = h("p", { class: "message", "data-favourite-message": "" });
  const name = h("input", { id: `favourite-name-${tbl.id}`, maxlength: 24, autocomplete: "off", "data-favourite-name": "" });
  const box = h("details", { class: "favourites", "data-favourites": kind });
  let shown = [];

  const say = (text) => {
    message.textContent = text;
    if (text) announce(text);
  };
  const total = (bets) => Object.values(bets).reduce((sum, cents) => sum + cents, 0);
  const draw = () =>
    fill(
      list,
      shown.length ? null : h("li", { class: "muted", text: t("favourites.none") }),
      shown.map((favourite) =>
        h(
          "li",
          { "data-favourite": favourite.name },
          h("button", {
            type: "button",
            class: "btn small",
            "data-favourite-place": favourite.name,
            text: `${favourite.name} \u00b7 ${money(total(favourite.bets))}`,
            onclick: () => {
              place(favourite.bets);
              box.open = false;
              announce(t("favourites.placed", { name: favourite.name }));
            },
          }),
          h("button", {
            type: "button",
            class: "btn small icon",
            "data-favourite-delete": favourite.name,
            "aria-label": t("favourites.delete", { name: favourite.name }),
            title: t("favourites.delete", { name: favourite.name }),
            text: "\u00d7",
            onclick: () => send("DELETE", favourite.name, undefined, t("favourites.deleted", { name: favourite.name })),
          }),
        ),
      ),
    );

  async function send(method, label, body, done) {
    try {
      shown = (await api.request(method, path(label), body ? { body } : {})).favourites;
      draw();
      say(done);
    } catch (error) {
      say(errorText(error));
    }
  }

  const save = h(
    "form",
    {
      class: "favourite-save",
      onsubmit: (event) => {
        event.preventDefault();
        const bets = current();
        if (!Object.keys(bets).length) return say(t("favourites.no_bets"));
        if (!name.value.trim()) return say(t("favourites.no_name"));
        send("PUT", name.value.trim(), { bets }, t("favourites.saved", { name: name.value.trim() }));
        name.value = "";
      },
    },
    h("label", { for: name.id, text: t("favourites.name") }),
    name,
    h("button", { type: "submit", class: "btn small primary", "data-favourite-save": "", text: t("favourites.save") }),
  );
  const panel = h("div", { class: "favourites-panel", role: "group", "aria-label": t("favourites.title") }, list, save, message);
  box.append(
    h(
      "summary",
      { class: "btn small", "aria-label": t("favourites.title"), title: t("favourites.title") },
      h("span", { "aria-hidden": "true", text: STAR }),
    ),
    panel,
  );
  box.addEventListener("toggle", () => {
    if (!box.open) return;
    // The panel opens under the star, moved as far as it takes to stay on the screen.
    panel.style.transform = "";
    const where = panel.getBoundingClientRect();
    const shift = Math.max(8 - where.left, Math.min(0, window.innerWidth - 8 - where.right));
    panel.style.transform = `translateX(${Math.round(shift)}px)`;
    send("GET", "", undefined, "");
  });
  return box;
}

/**
 * The felt's bet tools, at the top of the felt between the hands (after the spots in the
 * keyboard's order, before the buttons): the favourites' star, whose panel also starts an
 * autoplay (`auto`: js/autoplay.js's controls), and the autoplay's STOP while it runs. Those
 * the profile offers (none: nothing).
 */
export function placeTools(felt, favourites, auto) {
  if (favourites && auto) {
    favourites.querySelector(".favourites-panel").append(auto.start);
    auto.start.addEventListener("click", () => {
      favourites.open = false;
    });
  }
  const shown = [favourites, auto && !favourites ? auto.start : null, auto ? auto.stop : null].filter(Boolean);
  if (shown.length) felt.append(h("div", { class: "bet-tools", role: "group", "aria-label": t("favourites.tools") }, shown));
}
