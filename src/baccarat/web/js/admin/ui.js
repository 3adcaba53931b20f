// Building blocks of the back office's pages: panels, tables with their CSV link, a
// reason form for every change (each is audited with its reason), and the figures, times
// and names of codes in the staff member's language (the catalogs' office.* entries).

import { h } from "../dom.js";
import { has, language, locale, money, number, percent, t } from "../i18n.js";
import { ApiError, csvHref } from "./api.js";

export const cents = (value) => (value === null || value === undefined ? "" : money(value));
export const pct = (value) => (value === null || value === undefined ? "" : percent(value, 2));
export const count = (value) => (value === null || value === undefined ? "" : number(value));

const formats = new Map();
/** An Intl format of the page's language, made once per language. */
function format(kind, make) {
  const key = `${language()}|${kind}`;
  if (!formats.has(key)) formats.set(key, make(locale()));
  return formats.get(key);
}

/** Minor units of a given currency (a round on an operator's wallet is in the session's). */
export function minor(value, code) {
  if (value === null || value === undefined) return "";
  const shown = format(`money|${code}`, (at) => new Intl.NumberFormat(at, { style: "currency", currency: code }));
  return shown.format(value / 10 ** shown.resolvedOptions().maximumFractionDigits);
}

/** A moment (ISO 8601) as the back office shows it: the date and time in UTC, which the
 * reports' days are days of. */
export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return format("when", (at) => new Intl.DateTimeFormat(at, { dateStyle: "short", timeStyle: "long", timeZone: "UTC" })).format(date);
}

/** A day of the reports (YYYY-MM-DD, UTC). */
export function day(text) {
  const date = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return String(text ?? "");
  return format("day", (at) => new Intl.DateTimeFormat(at, { dateStyle: "medium", timeZone: "UTC" })).format(date);
}

/** An identifier or a machine's text (a table's id, a round, JSON details): as it is. */
export const code = (value) =>
  value === null || value === undefined || value === ""
    ? ""
    : h("code", { class: "mono", text: typeof value === "string" ? value : JSON.stringify(value) });

/** The catalog's name of a code (office.GROUP.CODE: a role, an event's kind...), or the code
 * itself (one the catalog does not know yet). */
export function named(group, value) {
  const key = `office.${group}.${value}`;
  return has(key) ? t(key) : String(value ?? "");
}

/** Who did a staff action: a member's name, or the operator at the command line (the
 * audit's "command line": no member's name has a space). */
export const actor = (who) => (who === "command line" ? t("office.command_line") : who);

/** A bet's name (the table's, bet.*), or the back office's (office.bet.fee: the fees' row). */
export const betName = (bet) => (has(`bet.${bet}`) ? t(`bet.${bet}`) : named("bet", bet));

/** A refusal of the API (or no answer at all) as a sentence in the page's language. */
export function refusal(failure) {
  if (!(failure instanceof ApiError)) return t("office.error.network");
  const key = `office.error.${failure.code}`;
  if (has(key)) return t(key, failure.details);
  return t("office.error.generic", { code: failure.code, message: failure.message });
}

// A table wider or taller than its box scrolls inside it: then (and only then) the box is a
// region named after the table that the keyboard can reach and scroll (WCAG 2.1.1). Its size
// and its table's are watched: a phone turned, a page resized.
function scrollable(box) {
  const scrolls = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight;
  if (scrolls) {
    box.setAttribute("tabindex", "0");
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", box.dataset.name || t("office.table"));
  } else {
    for (const name of ["tabindex", "role", "aria-label"]) box.removeAttribute(name);
  }
}
const resized = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    // A table taken off the page (another page drawn) is watched no more.
    if (target.isConnected) scrollable(target.closest(".office-table-wrap"));
    else resized.unobserve(target);
  }
});

/** A panel: a title (with a CSV link when given the report's path) and its content; the
 * tables in it are named after its title. */
export function panel(title, csvPath, ...children) {
  const heading = h("h2", null, title);
  if (csvPath) {
    heading.append(h("a", { href: csvHref(csvPath), download: "", text: t("office.csv"), "aria-label": t("office.csv_of", { title }) }));
  }
  const section = h("section", { class: "panel" }, heading, ...children);
  for (const box of section.querySelectorAll(".office-table-wrap:not([data-name])")) box.dataset.name = title;
  return section;
}

/**
 * A table of rows: columns are [key, label, format?]; rowClass(row) may mark a row. On a
 * narrow screen each row becomes a card of "label value" lines, except a table of
 * ``figures`` (the reports), shown whole (only a screen too narrow for its columns scrolls
 * it sideways). ``name`` names a table outside a panel.
 */
export function table(rows, columns, rowClass, { figures = false, name = null } = {}) {
  if (!rows.length) return h("p", { class: "muted", text: t("office.nothing") });
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
  const box = h("div", { class: figures ? "office-table-wrap figures" : "office-table-wrap", "data-name": name }, shown);
  resized.observe(box);
  resized.observe(shown);
  return box;
}

/** ``act()`` on the form's submit; a refusal is said in ``error``. */
function submits(form, error, act) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      await act();
    } catch (failure) {
      error.textContent = refusal(failure);
    }
  });
  return form;
}

/** A small form: a reason (required) and a button; ``act(reason)`` runs on submit. */
export function reasonForm(label, act, { danger = false, extra = [] } = {}) {
  const input = h("input", {
    name: "reason",
    required: true,
    maxlength: "200",
    placeholder: t("office.reason"),
    "aria-label": t("office.reason_for", { action: label }),
  });
  const error = h("span", { class: "office-error", role: "alert" });
  const button = h("button", { type: "submit", class: danger ? "btn danger" : "btn", text: label });
  return submits(h("form", { class: "toolbar" }, ...extra, input, button, error), error, () => act(input.value));
}

/** A page's form of what it shows (a search, a filter, a range of days) and its button:
 * ``act()`` runs on submit. */
export function askForm(fields, label, act) {
  const error = h("span", { class: "office-error", role: "alert" });
  const button = h("button", { class: "btn primary", type: "submit", text: label });
  return submits(h("form", { class: "toolbar panel" }, fields, button, error), error, act);
}

export function keyValues(pairs) {
  return h(
    "dl",
    { class: "kv" },
    ...pairs.flatMap(([key, value]) => [h("dt", { text: key }), h("dd", null, value instanceof Node ? value : String(value ?? ""))]),
  );
}
