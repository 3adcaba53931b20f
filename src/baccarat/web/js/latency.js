// The connection's latency at a clocked (shared) table (docs/jurisdictions.md; AGCO 4.20-4.21:
// the player is told that the connection's speed may affect the game): the table's socket is
// pinged every few seconds and the time to its pong shown as good, fair or poor; while a
// betting window is open, a warning when a bet sent now may not arrive before it closes.

import { announce, h } from "./dom.js";
import { t } from "./i18n.js";
import { allows } from "./profile.js";

export const PING_MS = 4000;
// Round trips (ms) up to these are good, then fair; above, poor. A pong not back within
// LOST_MS counts as that long.
const GOOD_MS = 150;
const FAIR_MS = 400;
const LOST_MS = 2000;

export class Latency {
  constructor() {
    this.on = allows("latency_meter");
    this.el = this.on ? h("p", { class: "latency", "data-latency": "" }) : null;
    this.sent = []; // the times of the pings not answered yet, oldest first
    this.rtt = null; // the last round trip, ms
    this.warned = null; // the coup whose window was warned of
    this.socket = null;
    this.timer = null;
  }

  /** Ping `socket` every PING_MS (the first at once, when it opens). */
  watch(socket) {
    if (!this.on) return;
    this.socket = socket;
    this.sent = [];
    clearInterval(this.timer);
    const ping = () => {
      if (this.socket !== socket || socket.readyState !== WebSocket.OPEN) return;
      if (this.sent.length && performance.now() - this.sent[0] > LOST_MS) this.measured(LOST_MS);
      this.sent.push(performance.now());
      socket.send(JSON.stringify({ action: "ping" }));
    };
    socket.addEventListener("open", ping);
    this.timer = setInterval(ping, PING_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.socket = null;
  }

  /** The socket's pong: the oldest ping's round trip. */
  pong() {
    const sent = this.sent.shift();
    if (sent != null) this.measured(performance.now() - sent);
  }

  measured(ms) {
    this.rtt = Math.round(ms);
    this.draw();
  }

  get quality() {
    if (this.rtt == null) return "";
    return this.rtt <= GOOD_MS ? "good" : this.rtt <= FAIR_MS ? "fair" : "poor";
  }

  /**
   * Whether a bet sent now may arrive after a window that closes in `leftMs`, on a connection
   * that is not good (a round trip, the page's gathering of the chips `sendMs`, and a margin
   * of a round trip more; on a good one the table's own warning before the close says it).
   */
  risky(leftMs, sendMs) {
    return this.rtt > GOOD_MS && leftMs > 0 && leftMs < 2 * this.rtt + sendMs;
  }

  /** Draw the meter, and the warning (said once a coup) while the window of `coup` is open. */
  draw(coup = null, leftMs = 0, sendMs = 0) {
    if (!this.el || this.rtt == null) return;
    const quality = this.quality;
    const risky = coup != null && this.risky(leftMs, sendMs);
    this.el.dataset.quality = quality;
    this.el.dataset.risky = String(risky);
    this.el.textContent =
      t("latency.meter", { quality: t(`latency.${quality}`), ms: this.rtt }) + (risky ? ` ${t("latency.warning")}` : "");
    if (risky && this.warned !== coup) {
      this.warned = coup;
      announce(t("latency.warning"));
    }
  }
}
