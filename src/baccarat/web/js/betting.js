// The bets on the table: chip stacks per spot, undo history, and a pre-check of the bets
// against the rules the API gives for each bet (explained before anything is sent). The
// pre-check is for speed only: the server checks the bets again and has the last word.

import { wageredOf } from "./lightning.js";

// The main bets, which every table takes; a table's side bets follow them in its "bets".
export const SPOTS = ["player", "banker", "tie"];

/** Every bet a table takes (the API's "bets" list, main bets first). */
export const spotsOf = (tbl) => (tbl && tbl.bets ? Object.keys(tbl.bets) : SPOTS);

const emptyStacks = (spots) => Object.fromEntries(spots.map((s) => [s, []]));

/** Split an amount into chips, largest first; a remainder no chip makes is one odd chip. */
export function chipsFor(amount, chipValues) {
  const out = [];
  let left = amount;
  for (const value of [...chipValues].sort((a, b) => b - a)) {
    while (value > 0 && left >= value) {
      out.push(value);
      left -= value;
    }
  }
  if (left > 0) out.push(left);
  return out.reverse();
}

export class Bets {
  constructor(chipValues, spots = SPOTS) {
    this.chipValues = chipValues;
    this.spots = spots;
    this.stacks = emptyStacks(spots);
    this.history = [];
  }

  snapshot() {
    this.history.push(JSON.stringify(this.stacks));
    if (this.history.length > 200) this.history.shift();
  }

  total(spot) {
    if (spot) return this.stacks[spot].reduce((a, b) => a + b, 0);
    return this.spots.reduce((sum, s) => sum + this.total(s), 0);
  }

  amounts() {
    const out = {};
    for (const spot of this.spots) {
      const amount = this.total(spot);
      if (amount > 0) out[spot] = amount;
    }
    return out;
  }

  isEmpty() {
    return this.total() === 0;
  }

  add(spot, chip) {
    this.snapshot();
    this.stacks[spot].push(chip);
  }

  /** Take the top chip off one spot (right-click / the remove control). */
  remove(spot) {
    if (!this.stacks[spot].length) return false;
    this.snapshot();
    this.stacks[spot].pop();
    return true;
  }

  undo() {
    if (!this.history.length) return false;
    this.stacks = JSON.parse(this.history.pop());
    return true;
  }

  clear() {
    if (this.isEmpty()) return false;
    this.snapshot();
    this.stacks = emptyStacks(this.spots);
    return true;
  }

  double() {
    if (this.isEmpty()) return false;
    this.snapshot();
    for (const spot of this.spots) this.stacks[spot] = [...this.stacks[spot], ...this.stacks[spot]];
    return true;
  }

  /** Put these amounts on the table (REBET). */
  set(amounts) {
    this.snapshot();
    for (const spot of this.spots) this.stacks[spot] = chipsFor(amounts[spot] || 0, this.chipValues);
  }

  /** What these bets would be after doubling, without changing anything. */
  doubled() {
    const out = {};
    for (const [spot, amount] of Object.entries(this.amounts())) out[spot] = amount * 2;
    return out;
  }

  reset() {
    this.stacks = emptyStacks(this.spots);
    this.history = [];
  }
}

/**
 * The first reason these bets may not be dealt, or null, found with the rules the API gives
 * (`tbl.bets`: each bet's {min, max, unit}, and the tie's `min_beside`, its minimum beside a
 * Player or Banker bet) and the balance (null: not checked). A rule the API does not give is
 * not checked: the server's answer says the rest.
 * Returns {key, params} where params hold amounts in cents (the UI formats them).
 */
export function checkBets(amounts, tbl, balance) {
  const offered = (tbl && tbl.bets) || {};
  const placed = Object.entries(amounts).filter(([, amount]) => amount > 0);
  if (!placed.length) return { key: "check.no_bet", params: {} };
  for (const [spot] of placed) {
    if (!(spot in offered)) return { key: "check.not_offered", params: { spot } };
  }
  const alone = !(amounts.player > 0 || amounts.banker > 0);
  for (const [spot, bet] of Object.entries(offered)) {
    const amount = amounts[spot] || 0;
    if (amount <= 0) continue;
    const problem = spot === "tie" ? tieProblem(amount, bet, alone) : limitProblem(spot, amount, bet);
    if (problem) return problem;
    if (bet.unit > 0 && amount % bet.unit !== 0) {
      return { key: "check.not_a_multiple", params: { spot, amount, limit: bet.unit } };
    }
  }
  // What the bets take: their stakes, and at a multiplier table the fees taken with them.
  const total = wageredOf(tbl, amounts);
  if (balance != null && total > balance) {
    return { key: "check.above_balance", params: { amount: total, limit: balance } };
  }
  return null;
}

function limitProblem(spot, amount, { min, max }) {
  if (min != null && amount < min) return { key: "check.below_min", params: { spot, amount, limit: min } };
  if (max != null && amount > max) return { key: "check.above_max", params: { spot, amount, limit: max } };
  return null;
}

// The tie: `min` alone, `min_beside` beside a Player or Banker bet (no minimum checked there
// when the API gives none), `max` either way.
function tieProblem(amount, { min, min_beside: beside, max }, alone) {
  const params = (limit) => ({ spot: "tie", amount, limit });
  if (alone && min != null && amount < min) return { key: "check.tie_below_min_alone", params: params(min) };
  if (!alone && beside != null && amount < beside) return { key: "check.tie_below_min", params: params(beside) };
  if (max != null && amount > max) return { key: "check.tie_above_max", params: params(max) };
  return null;
}
