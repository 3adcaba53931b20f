// The bets on the table: chip stacks per spot, undo history, and the client-side check of
// the table's limits and the balance (explained before anything is sent).

// The main bets, which every table takes; a table's side bets follow them in its "bets".
export const SPOTS = ["player", "banker", "tie"];

/** Every bet a table takes (the API's "bets" list, main bets first). */
export const spotsOf = (tbl) => (tbl && tbl.bets ? Object.keys(tbl.bets) : SPOTS);

/** The side bets of a table with their limits: {name: {min, max}}. */
export function sideLimits(tbl) {
  const out = {};
  for (const [name, bet] of Object.entries((tbl && tbl.bets) || {})) {
    if (!SPOTS.includes(name)) out[name] = { min: bet.min, max: bet.max };
  }
  return out;
}

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
 * The first reason these bets may not be dealt, or null. Limits are in cents:
 * {min, max} per Player/Banker bet; {tie_min, tie_min_alone, tie_max} for the tie bet;
 * `side` holds {min, max} per side bet the table takes (``sideLimits``).
 * Returns {key, params} where params hold amounts in cents (the UI formats them).
 */
export function checkBets(amounts, limits, balance, side = {}) {
  const player = amounts.player || 0;
  const banker = amounts.banker || 0;
  const tie = amounts.tie || 0;
  const total = Object.values(amounts).reduce((a, b) => a + (b || 0), 0);
  if (total <= 0) return { key: "check.no_bet", params: {} };
  const bounded = [
    ["player", player, limits],
    ["banker", banker, limits],
    ...Object.entries(side).map(([name, bounds]) => [name, amounts[name] || 0, bounds]),
  ];
  for (const [spot, amount, bounds] of bounded) {
    if (amount > 0 && bounds.min != null && amount < bounds.min) {
      return { key: "check.below_min", params: { spot, amount, limit: bounds.min } };
    }
    if (amount > 0 && bounds.max != null && amount > bounds.max) {
      return { key: "check.above_max", params: { spot, amount, limit: bounds.max } };
    }
  }
  if (tie > 0) {
    const alone = player === 0 && banker === 0;
    const tieMax = limits.tie_max ?? limits.max;
    const tieMinAlone = limits.tie_min_alone ?? limits.min;
    const tieMin = limits.tie_min ?? limits.min;
    if (alone && tieMinAlone != null && tie < tieMinAlone) {
      return { key: "check.tie_below_min_alone", params: { spot: "tie", amount: tie, limit: tieMinAlone } };
    }
    if (!alone && tieMin != null && tie < tieMin) {
      return { key: "check.tie_below_min", params: { spot: "tie", amount: tie, limit: tieMin } };
    }
    if (tieMax != null && tie > tieMax) {
      return { key: "check.tie_above_max", params: { spot: "tie", amount: tie, limit: tieMax } };
    }
  }
  if (balance != null && total > balance) {
    return { key: "check.above_balance", params: { amount: total, limit: balance } };
  }
  return null;
}
