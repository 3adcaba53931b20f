// Message catalogs (i18n/{lang}.json; the back office's besides), the player's language, money
// and number formats.

export const LANGUAGES = {
  en: { locale: "en-US", name: "English" },
  de: { locale: "de-DE", name: "Deutsch" },
  da: { locale: "da-DK", name: "Dansk" },
  sv: { locale: "sv-SE", name: "Svenska" },
};
const STORE = "baccarat.lang";
// The session's currency (ISO 4217): a game an operator launched names it in its address;
// a player of ours has it from their wallet (setCurrency).
const asked = new URLSearchParams(location.search).get("currency");
export const ASKED_CURRENCY = asked && /^[A-Z]{3}$/.test(asked) ? asked : "USD";
export let CURRENCY = ASKED_CURRENCY;
// Amounts are integers of its minor unit (USD cents, JPY yen, KWD fils): Intl knows its digits.
let DIGITS = 2;
let MINOR = 100;

/** Show amounts in this currency from now on (the player's accounts are in it). */
export function setCurrency(code) {
  if (!/^[A-Z]{3}$/.test(code || "")) return false;
  const changed = code !== CURRENCY;
  CURRENCY = code;
  DIGITS = new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits;
  MINOR = 10 ** DIGITS;
  for (const key of [...formats.keys()]) if (key.endsWith("|money")) formats.delete(key);
  return changed;
}

let lang = "en";
let catalog = {};
let fallback = {};
const listeners = new Set();
const cache = new Map();
// The folders of i18n/ a page reads its catalogs from, merged in this order: the table's
// (i18n/{lang}.json), and then the back office's own (i18n/admin/{lang}.json).
const folders = [""];

/** Read the catalogs of i18n/NAME/ too, over the table's (before the first setLanguage). */
export function addCatalogs(name) {
  folders.push(`${name}/`);
  cache.clear();
}

export function pickLanguage() {
  // A game an operator launched opens in the language it asked for (docs/operator-api.md).
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGUAGES[asked]) return asked;
  const saved = localStorage.getItem(STORE);
  if (saved && LANGUAGES[saved]) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES[base]) return base;
    if (base === "nb" || base === "no" || base === "nn") return "da";
  }
  return "en";
}

async function load(code) {
  if (!cache.has(code)) {
    const parts = folders.map((folder) =>
      fetch(`i18n/${folder}${code}.json`).then((r) => {
        if (!r.ok) throw new Error(`catalog ${folder}${code}: ${r.status}`);
        return r.json();
      }),
    );
    cache.set(
      code,
      Promise.all(parts).then((found) => Object.assign({}, ...found)),
    );
  }
  return cache.get(code);
}

export async function setLanguage(code, { remember = false } = {}) {
  if (!LANGUAGES[code]) code = "en";
  const [main, en] = await Promise.all([load(code), code === "en" ? null : load("en")]);
  catalog = main;
  fallback = en || main;
  lang = code;
  if (remember) localStorage.setItem(STORE, code);
  document.documentElement.lang = code;
  applyStatic(document);
  for (const listener of listeners) listener(code);
}

export const language = () => lang;
export const locale = () => LANGUAGES[lang].locale;
export const onLanguage = (fn) => listeners.add(fn);

export function has(key) {
  return key in catalog || key in fallback;
}

/** The text for key, with {name} placeholders filled from params. */
export function t(key, params) {
  let text = catalog[key] ?? fallback[key] ?? key;
  if (params) {
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
  }
  return text;
}

/** Elements with data-i18n (text), data-i18n-label (aria-label), data-i18n-title. */
export function applyStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  }
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
}

const formats = new Map();
setCurrency(ASKED_CURRENCY);
function format(kind, options) {
  const key = `${lang}|${kind}`;
  if (!formats.has(key)) formats.set(key, new Intl.NumberFormat(locale(), options));
  return formats.get(key);
}

/** Integer cents (minor units) as money in the player's locale: 1234 -> "$12.34" / "12,34 $". */
export function money(cents) {
  return format("money", { style: "currency", currency: CURRENCY }).format(cents / MINOR);
}

/** The currency's symbol in the player's locale: "$", "€", "¥", "kr". */
export function currencySymbol() {
  const parts = format("money", { style: "currency", currency: CURRENCY }).formatToParts(0);
  return parts.find((part) => part.type === "currency")?.value || CURRENCY;
}

/** A signed amount: "+$5.00", "-$2.00", "$0.00". */
export function signedMoney(cents) {
  const text = money(Math.abs(cents));
  if (cents > 0) return `+${text}`;
  if (cents < 0) return `\u2212${text}`;
  return text;
}

/** Chip face: whole units without decimals ("5", "1K" style is avoided for clarity). */
export function chipLabel(cents) {
  const units = cents / MINOR;
  const fmt = format(Number.isInteger(units) ? "int" : "dec", {
    maximumFractionDigits: Number.isInteger(units) ? 0 : DIGITS,
    minimumFractionDigits: Number.isInteger(units) ? 0 : DIGITS,
  });
  return fmt.format(units);
}

/** A share as a percentage with `digits` decimals, every one of them shown: 98.94%, 85.64%. */
export function percent(value, digits = 2) {
  return format(`pct${digits}`, {
    style: "percent",
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value);
}

export function number(value) {
  return format("num", {}).format(value);
}

export function dateTime(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return new Intl.DateTimeFormat(locale(), { dateStyle: "short", timeStyle: "medium" }).format(date);
}

/**
 * Parse an amount typed by the player in their locale, in units of the session's currency
 * ("12,50" or "12.50" dollars, "1,000" yen), to its minor units (1250 cents, 1000 yen); at
 * most the currency's decimals (none for yen). null if it is no amount.
 */
export function parseMoney(text) {
  const cleaned = String(text)
    .trim()
    .replace(/[^\d.,]/g, "");
  if (!cleaned) return null;
  const decimals = DIGITS ? `(?:[.,](\\d{1,${DIGITS}}))?` : "";
  const match = cleaned.match(new RegExp(`^(\\d+(?:[.,]\\d{3})*|\\d+)${decimals}$`));
  if (!match) return null;
  const whole = match[1].replace(/[.,]/g, "");
  const frac = (match[2] || "").padEnd(DIGITS, "0");
  const minor = Number(whole) * MINOR + Number(frac || 0);
  return Number.isSafeInteger(minor) ? minor : null;
}
