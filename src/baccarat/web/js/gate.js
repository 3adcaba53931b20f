// The pages a visitor may only see logged in: in their place, a word and the way to the lobby.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import * as store from "./state.js";

/** Whether nobody is logged in; then `where` gets the "log in first" panel. */
export function loginFirst(where) {
  if (store.state.user) return false;
  where.append(
    h(
      "section",
      { class: "panel narrow" },
      h("h1", { text: t("table.login_first") }),
      h("a", { class: "btn primary", href: "#/", text: t("nav.lobby") }),
    ),
  );
  return true;
}
