// Building blocks of the back office's pages: panels, tables with their CSV link, a
// reason form for every change (each is audited with its reason).

import { h } from "../dom.js";
import { money } from "../i18n.js";
import { csvHref } from "./api.js";

export const cents = (value) => (value === null || value === undefined ? "" : money(value));
/** Minor units of a given currency (a round on an operator's wallet is in the session's). */
export function minor(value, code) {
  if (value === null || value === undefined) return "";
  const format = new Intl.NumberFormat("en-US", { style: "currency", currency: code });
  return format.format(value / 10 ** format.resolvedOptions().maximumFractionDigits);
}
export const pct = (value) => (value === null || value === undefined ? "" : `${(value * 100).toFixed(2)}%`);

/** A panel: a title (with a CSV link when given the report's path) and its content. */
export function panel(title, csvPath, ...children) {
  const heading = h("h2", null, title);
  if (csvPath) heading.append(h("a", { href: csvHref(csvPath), download: "", text: "CSV" }));
  return h("section", { class: "panel" }, heading, ...children);
}

/**
 * A table of rows: columns are [key, label, format?]; rowClass(row) may mark a row. On a
 * narrow screen each row becomes a card of "label value" lines, except a table of
 * ``figures`` (the reports), shown whole (only a screen too narrow for its columns scrolls
 * it sideways).
 */
export function table(rows, columns, rowClass, { figures = false } = {}) {
  if (!rows.length) return h("p", { class: "muted", text: "Nothing to show." });
  const head = h("tr", null, ...columns.map(([, label]) => h("th", { scope: "col", text: label })));
  const body = rows.map((row) =>
    h(
      "tr",
      { class: rowClass ? rowClass(row) : null },
      ...columns.map(([key, label, format]) => {
        const value = typeof key === "function" ? key(row) : row[key];
        const shown = format ? format(value, row) : value;
        return h("td", { "data-label": label }, shown instanceof Node ? shown : String(shown ?? ""));
      }),
    ),
  );
  const shown = h("table", { class: figures ? null : "records" }, h("thead", null, head), h("tbody", null, ...body));
  return h("div", { class: figures ? "office-table-wrap figures" : "office-table-wrap" }, shown);
}

/** A small form: a reason (required) and a button; ``act(reason)`` runs on submit. */
export function reasonForm(label, act, { danger = false, extra = [] } = {}) {
  const input = h("input", { name: "reason", required: true, maxlength: "200", placeholder: "reason", "aria-label": `${label}: reason` });
  const error = h("span", { class: "office-error", role: "alert" });
  const form = h(
    "form",
    { class: "toolbar" },
    ...extra,
    input,
    h("button", { type: "submit", class: danger ? "btn danger" : "btn", text: label }),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      await act(input.value);
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
  return form;
}

export function keyValues(pairs) {
  return h(
    "dl",
    { class: "kv" },
    ...pairs.flatMap(([key, value]) => [h("dt", { text: key }), h("dd", null, value instanceof Node ? value : String(value ?? ""))]),
  );
}
