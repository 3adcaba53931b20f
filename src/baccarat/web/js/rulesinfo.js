// A table's rule set and limits in words, shared by the lobby, the table and the rules page.

import { has, money, percent, t } from "./i18n.js";

/** A table's name in the page's language (the catalog's `tablename.ID`, else its own). */
export const tableName = (tbl) => (has(`tablename.${tbl.id}`) ? t(`tablename.${tbl.id}`) : tbl.name);

/** "19/20" or "9" or 0.95 -> a Number. */
export function fraction(value) {
  if (typeof value === "number") return value;
  const text = String(value ?? "");
  if (text.includes("/")) {
    const [a, b] = text.split("/").map(Number);
    return a / b;
  }
  return Number(text);
}

/** A pay "to one" as text: 1 -> "1:1", 0.95 -> "19:20", 8 -> "8:1", 0.5 -> "1:2". */
export function toOne(pay) {
  if (Math.abs(pay - 0.95) < 1e-9) return "19:20";
  if (pay > 0 && pay < 1 && Number.isInteger(1 / pay)) return `1:${1 / pay}`;
  if (Number.isInteger(pay)) return `${pay}:1`;
  return `${pay}:1`;
}

export function bankerPay(rules) {
  return fraction(rules.banker_pays ?? 1) * (1 - fraction(rules.banker_commission ?? "1/20"));
}

export function pays(rules) {
  return {
    player: fraction(rules.player_pays ?? 1),
    banker: bankerPay(rules),
    tie: fraction(rules.tie_pays ?? 8),
  };
}

export function isCutShoe(rules) {
  return rules && rules.shuffle === "cut-shoe";
}

export function describeRules(rules) {
  if (!rules) return "";
  const shuffle = isCutShoe(rules) ? t("rules.cut_shoe") : t("rules.fresh_shuffle");
  return t("rules.summary", {
    decks: rules.decks === 1 ? t("rules.decks_one") : t("rules.decks_many", { n: rules.decks }),
    shuffle,
    tie: toOne(fraction(rules.tie_pays ?? 8)),
    commission: percent(fraction(rules.banker_commission ?? "1/20"), 0),
  });
}

export function limitsText(limits) {
  if (!limits) return "";
  return t("limits.range", { min: money(limits.min), max: money(limits.max) });
}

export function tieLimitsText(limits) {
  if (!limits || limits.tie_max == null) return "";
  return t("limits.tie", {
    alone: money(limits.tie_min_alone ?? limits.min),
    min: money(limits.tie_min ?? limits.min),
    max: money(limits.tie_max),
  });
}
