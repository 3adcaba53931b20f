// Server refusals and client checks in the player's language.

import { dateTime, has, money, t } from "./i18n.js";

const MONEY_KEYS = /amount|limit|min|max|balance|stake|total|available|left|used|requested|net|wagered/i;
const TIME_KEYS = /^(resets|until|ended|started|resumes)$/;

function formatDetails(details) {
  const out = {};
  for (const [key, value] of Object.entries(details || {})) {
    if (typeof value === "number" && MONEY_KEYS.test(key) && !/minutes|seconds/.test(key)) {
      out[key] = money(value);
    } else if (TIME_KEYS.test(key)) {
      out[key] = dateTime(value);
    } else if (key === "period" && has(`rg.period_${value}`)) {
      out[key] = t(`rg.period_${value}`);
    } else if (key === "status" && has(`operator.${value}`)) {
      out[key] = t(`operator.${value}`); // an operator's wallet refused (docs/operator-api.md)
    } else if (key === "bet" && has(`spot.${value}`)) {
      out[key] = t(`spot.${value}`);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** A refusal (ApiError) as a sentence in the current language. */
export function errorText(error) {
  const code = error && error.code ? error.code : "unknown";
  const key = `error.${code}`;
  if (has(key)) return t(key, formatDetails(error.details));
  if (error && error.status >= 500) return t("error.server");
  return t("error.generic", { code, message: (error && error.message) || code });
}

/** What `promise` gives, or `fallback` and the refusal as a sentence: [value, text or null]. */
export async function orRefusal(promise, fallback) {
  try {
    return [await promise, null];
  } catch (error) {
    return [fallback, errorText(error)];
  }
}

/** A problem found by betting.checkBets, explained with its limit in money. */
export function checkText(problem) {
  const params = { ...problem.params };
  if ("amount" in params) params.amount = money(params.amount);
  if ("limit" in params) params.limit = money(params.limit);
  if (params.spot) params.spot = t(`spot.${params.spot}`);
  return t(problem.key, params);
}
