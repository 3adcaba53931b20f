// Where the profile asks for it (Malta: MGA Player Protection Directive, as amended in 2023),
// the responsible-gaming tools are shown before the player's first real-money wager: the
// page asks the server whether the player has played real money yet, and before the first
// deal at a house table, or the first bets sent on a shared table's coup, shows what
// protects them and where to set it.

import * as api from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { allows } from "./profile.js";

let seen = false; // shown in this page, or the player has wagered real money before

/** Resolve when a wager in `mode` may go: at once, unless it is the player's first real one. */
export async function beforeFirstWager(mode) {
  if (mode !== "real" || seen || !allows("rg_before_first_wager")) return;
  try {
    seen = (await api.get("/api/history", { mode: "real", limit: 1 })).items.length > 0;
  } catch {
    return; // the deal itself will say what is wrong
  }
  if (seen) return;
  await new Promise((resolve) => {
    const dialog = h(
      "dialog",
      { class: "rg-dialog", "data-rg-first": "", "aria-labelledby": "rg-first-title" },
      h("h2", { id: "rg-first-title", text: t("rgfirst.title") }),
      h("p", { text: t("rgfirst.text") }),
      h(
        "ul",
        null,
        ["limits", "reality", "session", "break"].map((item) => h("li", { text: t(`rgfirst.${item}`) })),
      ),
      h(
        "div",
        { class: "row" },
        h("button", {
          class: "btn primary",
          type: "button",
          "data-rg-first-ok": "",
          text: t("rgfirst.ok"),
          onclick: () => {
            dialog.close();
            dialog.remove();
            resolve();
          },
        }),
        h("a", { class: "btn", href: "#/responsible", text: t("rgfirst.set") }),
      ),
    );
    dialog.addEventListener("cancel", (event) => event.preventDefault());
    document.body.append(dialog);
    dialog.showModal();
  });
  seen = true;
}
