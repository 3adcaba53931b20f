// The net position and the time spent in the session, always on the felt where the profile
// says so (GB: UKGC RTS 2E and 13C; Ontario: the net position in the session's currency).
// Both are the server's counts (GET /api/session/position, per mode), read when the table
// opens or comes back into view; after a house round its answer carries them (`position`),
// drawn as its result shows. The time runs on between two reads.

import * as api from "./api.js";
import { h } from "./dom.js";
import { signedMoney, t } from "./i18n.js";
import { shows } from "./profile.js";
import { duration } from "./watch.js";

export class Position {
  constructor() {
    this.on = shows("net_position") || shows("session_time");
    this.el = this.on ? h("p", { class: "session-position", "data-position": "" }) : null;
    this.data = null;
    this.read = 0; // when the server's answer came (Date.now())
    this.timer = this.on ? setInterval(() => this.draw(), 1000) : null;
  }

  /** Put the line in `parent` (again, after the felt was drawn anew). */
  mount(parent) {
    if (this.el) parent.append(this.el);
    this.draw();
  }

  stop() {
    clearInterval(this.timer);
  }

  /** Ask the server again (the mode the felt plays). */
  async refresh(mode) {
    if (!this.on) return;
    try {
      this.set(await api.get("/api/session/position", { mode }));
    } catch {
      // offline, or logged out: the line keeps what it showed
    }
  }

  /**
   * A round's result is shown: the position the server counted with it, which the round's
   * answer carries (drawn at once, not asked again); an answer without it is asked after.
   */
  played(round, mode) {
    if (!this.on) return;
    if (round && round.position) this.set(round.position);
    else this.refresh(mode);
  }

  set(data) {
    this.data = data;
    this.read = Date.now();
    this.draw();
  }

  draw() {
    if (!this.el || !this.data) return;
    const parts = [];
    if (shows("session_time")) {
      const seconds = this.data.played_seconds + (Date.now() - this.read) / 1000;
      parts.push(t("position.time", { time: duration(seconds) }));
    }
    if (shows("net_position")) parts.push(t("position.net", { net: signedMoney(this.data.net) }));
    this.el.textContent = parts.join(" \u00b7 ");
    this.el.dataset.net = String(this.data.net);
    this.el.dataset.positionMode = this.data.mode; // (not data-mode: the header's mode buttons)
  }
}
