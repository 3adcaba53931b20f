// The least time from one round's start to the next one's, where the profile sets one
// (min_cycle_ms: GB's 5 seconds, docs/jurisdictions.md). The server refuses a round started
// sooner (cycle_too_soon); the page counts the time down on DEAL and keeps it off meanwhile.

import { t } from "./i18n.js";
import { amount } from "./profile.js";

export class Cycle {
  /** `changed()` is called as the time left changes (every second) and when it is over. */
  constructor(changed) {
    this.changed = changed;
    this.until = 0;
    this.timer = null;
  }

  /**
   * A round just started (its answer came, so it started before now): the next waits the
   * profile's time, or `ms` when the server said how long is left.
   */
  start(ms = amount("min_cycle_ms")) {
    if (ms <= 0) return;
    this.until = performance.now() + ms;
    this.stop();
    this.timer = setInterval(() => {
      if (this.ready()) this.stop();
      this.changed();
    }, 250);
    this.changed();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  left() {
    return Math.max(0, this.until - performance.now());
  }

  ready() {
    return this.left() <= 0;
  }

  /** What DEAL says while the time runs ("4 s"), or "" when it may be pressed. */
  label() {
    return this.ready() ? "" : t("cycle.wait", { s: Math.ceil(this.left() / 1000) });
  }
}
