// A table's rule set and limits in words, shared by the lobby, the table and the rules page.

import { has, money, number, percent, t } from "./i18n.js";

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

/**
 * A pay "to one" as text, its numbers in the page's locale: 1 -> "1:1", 0.95 -> "19:20",
 * 8 -> "8:1", 0.5 -> "1:2", 1.5 -> "1.5:1" ("1,5:1" in German); none -> "–".
 */
export function toOne(pay) {
  if (pay == null || Number.isNaN(pay)) return "\u2013";
  if (Math.abs(pay - 0.95) < 1e-9) return "19:20";
  if (pay > 0 && pay < 1 && Number.isInteger(1 / pay)) return `1:${number(1 / pay)}`;
  return `${number(pay)}:1`;
}

/**
 * The headline pay of a bet from the API's pay table (`tbl.bets[name].pays`: line -> pay
 * "to one" or "push"): its "win" line ("19/20" for a banker with commission, "1" at EZ and
 * no-commission tables), else its best line (the tie's "8", a pair's "11"); null if none.
 */
export function headlinePay(bet) {
  const lines = (bet && bet.pays) || {};
  if (lines.win != null && lines.win !== "push") return fraction(lines.win);
  const paid = Object.values(lines).filter((pay) => pay !== "push");
  return paid.length ? Math.max(...paid.map(fraction)) : null;
}

/** The main bets' headline pays from the table's pay tables: {player, banker, tie}. */
export function pays(tbl) {
  const bets = (tbl && tbl.bets) || {};
  return { player: headlinePay(bets.player), banker: headlinePay(bets.banker), tie: headlinePay(bets.tie) };
}

export function isCutShoe(rules) {
  return rules && rules.shuffle === "cut-shoe";
}

/** Whether the player cuts the table's shoe (Mini): a shared table's shoe is everyone's. */
export const playerCuts = (tbl) => Boolean(tbl && isCutShoe(tbl.rules) && !tbl.shared);

/** A table's rules in one line: decks, how its shoe is dealt, the tie's pay, the commission. */
export function describeRules(tbl) {
  const rules = tbl && tbl.rules;
  if (!rules) return "";
  const shuffle = tbl.shared ? t("rules.shared_shoe") : isCutShoe(rules) ? t("rules.cut_shoe") : t("rules.fresh_shuffle");
  const summary = t("rules.summary", {
    decks: rules.decks === 1 ? t("rules.decks_one") : t("rules.decks_many", { n: rules.decks }),
    shuffle,
    tie: rules.tie_pays == null ? "\u2013" : toOne(fraction(rules.tie_pays)),
    commission: rules.banker_commission == null ? "\u2013" : percent(fraction(rules.banker_commission), 0),
  });
  // Multiplier baccarat: its multiplier cards and the fee taken with each stake.
  if (!rules.multipliers) return summary;
  return `${summary} \u00b7 ${t("rules.multiplier_summary", { fee: rules.multipliers.fee })}`;
}

export function limitsText(limits) {
  if (!limits) return "";
  return t("limits.range", { min: money(limits.min), max: money(limits.max) });
}

export function tieLimitsText(limits) {
  if (!limits || limits.tie_max == null) return "";
  return t("limits.tie", {
    alone: money(limits.tie_min_alone),
    min: money(limits.tie_min),
    max: money(limits.tie_max),
  });
}
