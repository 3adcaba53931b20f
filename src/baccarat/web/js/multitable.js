// Several tables on one screen where the profile allows it (tables_at_once: up to four,
// docs/jurisdictions.md): the player picks them, the server says whether the profile allows
// so many (POST /api/tables-at-once: multi_table_not_allowed otherwise), and each plays in
// a frame of its own, the whole table page without its header. The balance is one: a round
// at one table tells the others (state.js), which read it from the server.

import * as api from "./api.js";
import { fill, h } from "./dom.js";
import { errorText } from "./errors.js";
import { loginFirst } from "./gate.js";
import { t } from "./i18n.js";
import { amount } from "./profile.js";
import { tableName } from "./rulesinfo.js";
import * as store from "./state.js";

/** The lobby's way here, where the profile allows more than one table at once. */
export const multiLink = () =>
  amount("tables_at_once") > 1 && store.state.user
    ? h("a", { class: "btn", href: "#/multi", "data-multi": "", text: t("multi.open") })
    : null;

function picker(tables, most, chosen) {
  const boxes = tables.map((tbl) =>
    h(
      "label",
      { class: "multi-choice" },
      h("input", { type: "checkbox", value: tbl.id, checked: chosen.includes(tbl.id), "data-pick": tbl.id }),
      ` ${tableName(tbl)}`,
    ),
  );
  const message = h("p", { class: "message", role: "alert" });
  return h(
    "form",
    {
      class: "panel multi-picker",
      onsubmit: (event) => {
        event.preventDefault();
        const ids = boxes
          .map((box) => box.querySelector("input"))
          .filter((box) => box.checked)
          .map((box) => box.value);
        if (!ids.length) {
          message.textContent = t("multi.none");
          return;
        }
        location.hash = `#/multi/${ids.map(encodeURIComponent).join(",")}`;
      },
    },
    h("fieldset", null, h("legend", { text: t("multi.pick", { most }) }), boxes),
    message,
    h("button", { type: "submit", class: "btn primary", "data-multi-open": "", text: t("multi.play") }),
  );
}

export async function render(root, arg) {
  if (loginFirst(root)) return null;
  const page = h("div", { class: "page multi-page" });
  root.append(page);
  const most = amount("tables_at_once");
  const tables = (await store.tables()).filter((tbl) => !tbl.banked);
  const chosen = (arg || "").split(",").filter(Boolean);
  const title = h("h1", { class: "page-title", text: t("multi.title") });
  if (!chosen.length) {
    fill(page, title, picker(tables, most, chosen));
    return { relabel: () => fill(page, title, picker(tables, most, chosen)) };
  }
  try {
    await api.post("/api/tables-at-once", { tables: chosen });
  } catch (error) {
    fill(
      page,
      title,
      h("p", { class: "message", role: "alert", "data-multi-refused": error.code || "", text: errorText(error) }),
      picker(tables, most, []),
    );
    return null;
  }
  const cells = chosen.map((id) => {
    const tbl = tables.find((x) => x.id === id);
    const frame = h("iframe", {
      class: "multi-frame",
      "data-frame": id,
      title: tbl ? tableName(tbl) : id,
      src: `/?embed=1#/table/${encodeURIComponent(id)}`,
    });
    return h("div", { class: "multi-cell" }, frame);
  });
  const grid = h("div", { class: "multi-grid", "data-count": cells.length }, cells);
  fill(page, h("h1", { class: "sr-only", text: t("multi.title") }), grid);
  // Fitted again when the window or the header (which wraps as it fills) changes size.
  const watcher = new ResizeObserver(() => layout(grid, cells.length));
  watcher.observe(document.documentElement);
  watcher.observe(document.querySelector(".topbar"));
  return { destroy: () => watcher.disconnect() };
}

/**
 * Each table plays at a page's size (a desktop's, or on a narrow screen a phone's) and is
 * shown scaled down to its cell: two columns where they fit, the rows within the window.
 */
function layout(grid, count) {
  const narrow = window.innerWidth < 900;
  const [width, height] = narrow ? [390, 760] : [1280, 720];
  const columns = narrow || count === 1 ? 1 : 2;
  const rows = Math.ceil(count / columns);
  const gap = 6;
  const top = grid.getBoundingClientRect().top;
  const across = (grid.clientWidth - gap * (columns - 1)) / columns / width;
  const down = narrow ? across : (window.innerHeight - top - gap * rows) / rows / height;
  grid.style.setProperty("--columns", String(columns));
  grid.style.setProperty("--scale", String(Math.max(0.2, Math.min(across, down))));
  grid.style.setProperty("--frame-w", `${width}px`);
  grid.style.setProperty("--frame-h", `${height}px`);
}
