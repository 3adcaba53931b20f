// Autoplay where the profile allows it (docs/jurisdictions.md): N rounds of the same bets,
// each sent by this page as the player's own round would be (marked with its number: the
// server refuses an autoplay the profile does not allow, or a longer one), each shown as
// any round. It stops at its last round, on the player's loss limit or single-win limit, on
// a balance that changed by anything but its rounds, on any refusal, and when the page loses
// the focus or the connection, or the player presses STOP. Where the profile says so (Malta)
// it asks for an alert every N rounds and waits for the player's word to go on.

import { announce, h } from "./dom.js";
import { money, parseMoney, signedMoney, t } from "./i18n.js";
import { allows, amount } from "./profile.js";
import * as store from "./state.js";

// The time a round's result stays on the felt before the next round starts.
export const PAUSE_MS = 1200;

/** The autoplay of one felt: its settings, its count, and why it stopped. */
export class Autoplay {
  /** `changed()` redraws the felt's control; `say(text, kind)` writes its message line. */
  constructor({ changed, say }) {
    this.changed = changed;
    this.say = say;
    this.active = false;
    this.played = 0;
    this.rounds = 0;
    this.net = 0;
    this.expected = null; // the balance the next round must start from
    this.onAway = () => {
      if (document.visibilityState === "hidden" || !document.hasFocus()) this.stop("focus");
    };
    this.onStore = () => {
      if (!store.state.online) this.stop("offline");
    };
  }

  /**
   * Start with settings {stakes, rounds, loss, win, alert} (amounts in minor units) from
   * `balance`, the balance before any of its bets (the wallet's, unless told).
   */
  start(settings, balance = store.state.wallet[store.state.mode] ?? null) {
    Object.assign(this, settings, { active: true, played: 0, net: 0, started: 0, reason: "", said: "" });
    this.expected = balance;
    window.addEventListener("blur", this.onAway);
    document.addEventListener("visibilitychange", this.onAway);
    store.onChange(this.onStore);
    this.say(t("autoplay.started", { n: this.rounds }), "info");
    this.changed();
  }

  /** Stop (once) and say why: done, loss, win, balance, refused, focus, offline, you. */
  stop(reason, detail = "") {
    if (!this.active) return;
    this.active = false;
    window.removeEventListener("blur", this.onAway);
    document.removeEventListener("visibilitychange", this.onAway);
    store.offChange(this.onStore);
    this.reason = reason;
    const why = t(`autoplay.stop_${reason}`);
    this.said = t("autoplay.stopped", { why, n: this.played, net: signedMoney(this.net) }) + (detail ? ` ${detail}` : "");
    this.sayAgain();
    this.changed();
  }

  /** Say why it stopped (again: after the round in flight when it stopped was shown). */
  sayAgain() {
    if (this.said) this.say(this.said, "warn");
  }

  /** The number of the next round to send (1, 2, ...), or 0 when none may start. */
  next() {
    if (!this.active || this.started > this.played) return 0;
    if (this.played >= this.rounds) {
      this.stop("done");
      return 0;
    }
    this.onAway();
    if (this.active && !store.state.online) this.stop("offline");
    if (!this.active) return 0;
    this.started = this.played + 1;
    return this.started;
  }

  /**
   * A round of the autoplay was settled: `before` and `after` the balance it started and
   * ended at (null where not known), `stake` and `win` its amounts. Whether to go on (an
   * alert the profile asks for waits for the player's word).
   */
  async settled({ before, after, stake, win }) {
    if (!this.active) return false;
    this.played += 1;
    this.net += win - stake;
    this.changed();
    const moved = before != null && this.expected != null && before !== this.expected;
    this.expected = after;
    const reason = moved
      ? "balance"
      : this.loss && -this.net >= this.loss
        ? "loss"
        : this.win && win - stake >= this.win
          ? "win"
          : this.played >= this.rounds
            ? "done"
            : null;
    if (!reason && this.alert && this.played % this.alert === 0 && !(await this.alertGoOn())) this.stop("you");
    if (reason) this.stop(reason);
    return this.active;
  }

  /** The round could not be played: the server's refusal, said with the stop. */
  refused(text) {
    this.stop("refused", text);
  }

  /** The profile's alert (MGA): the rounds and the net so far; go on only if the player says so. */
  alertGoOn() {
    return new Promise((resolve) => {
      const done = (goOn) => {
        dialog.close();
        dialog.remove();
        resolve(goOn && this.active);
      };
      const dialog = h(
        "dialog",
        { class: "rg-dialog", "data-autoplay-alert": "", "aria-labelledby": "autoplay-alert-title" },
        h("h2", { id: "autoplay-alert-title", text: t("autoplay.alert_title") }),
        h("p", { text: t("autoplay.alert_text", { n: this.played, of: this.rounds, net: signedMoney(this.net) }) }),
        h(
          "div",
          { class: "row" },
          h("button", {
            class: "btn primary",
            type: "button",
            "data-autoplay-go": "on",
            text: t("autoplay.go_on"),
            onclick: () => done(true),
          }),
          h("button", { class: "btn", type: "button", "data-autoplay-go": "stop", text: t("autoplay.stop"), onclick: () => done(false) }),
        ),
      );
      dialog.addEventListener("cancel", (event) => {
        event.preventDefault();
        done(false);
      });
      document.body.append(dialog);
      dialog.showModal();
    });
  }
}

/** Wait `ms`, unless the autoplay stops meanwhile. */
export function pause(auto, ms = PAUSE_MS) {
  return new Promise((resolve) => {
    const started = Date.now();
    const tick = setInterval(() => {
      if (!auto.active || Date.now() - started >= ms) {
        clearInterval(tick);
        resolve();
      }
    }, 50);
  });
}

function field(id, label, attrs = {}) {
  return h("div", { class: "field" }, h("label", { for: id, text: label }), h("input", { id, autocomplete: "off", ...attrs }));
}

/**
 * The autoplay's controls of a felt, or null where the profile allows no autoplay: `start`
 * opens the settings (`stakes()`: the bets to repeat, {bet: cents}; `balance()`: the balance
 * before the felt's bets where the casino holds them already) and starts `run(auto)`;
 * `stop`, shown while it runs, says the count and stops it.
 */
export function autoplayView(auto, { stakes, run, balance = () => undefined }) {
  const most = amount("autoplay_rounds");
  if (!most) return null;
  const alerting = allows("autoplay_alert");
  const start = h("button", { type: "button", class: "btn small", "data-autoplay": "", text: `\u21bb ${t("autoplay.title")}` });
  const stop = h("button", { type: "button", class: "btn small autoplay-stop", "data-autoplay-stop": "" });
  const draw = () => {
    const label = t("autoplay.running", { n: auto.played, of: auto.rounds });
    stop.setAttribute("aria-pressed", String(auto.active));
    stop.dataset.stopped = auto.active ? "" : auto.reason || "";
    stop.setAttribute("aria-label", label);
    stop.title = label;
    stop.textContent = `\u25a0 ${auto.played}/${auto.rounds}`;
  };
  const previous = auto.changed;
  auto.changed = () => {
    draw();
    previous();
  };
  start.addEventListener("click", () => ask());
  stop.addEventListener("click", () => auto.stop("you"));

  function ask() {
    const bets = stakes();
    if (!Object.keys(bets).length) {
      auto.say(t("autoplay.no_bets"), "warn");
      return;
    }
    const message = h("p", { class: "message", role: "alert" });
    const form = h(
      "form",
      { method: "dialog", class: "autoplay-form" },
      h("p", { class: "muted", text: t("autoplay.help", { bets: money(Object.values(bets).reduce((a, b) => a + b, 0)) }) }),
      field("autoplay-rounds", t("autoplay.rounds", { most }), {
        type: "number",
        min: 1,
        max: most,
        value: Math.min(10, most),
        required: true,
      }),
      field("autoplay-loss", alerting ? t("autoplay.loss_required") : t("autoplay.loss"), { inputmode: "decimal", required: alerting }),
      field("autoplay-win", t("autoplay.win"), { inputmode: "decimal" }),
      alerting ? field("autoplay-alert", t("autoplay.alert"), { type: "number", min: 1, max: most, value: 10, required: true }) : null,
      message,
      h(
        "div",
        { class: "row" },
        h("button", { class: "btn primary", type: "submit", "data-autoplay-start": "", text: t("autoplay.start") }),
        h("button", { class: "btn", type: "button", text: t("autoplay.cancel"), onclick: () => close() }),
      ),
    );
    const dialog = h(
      "dialog",
      { class: "rg-dialog", "data-autoplay-settings": "", "aria-labelledby": "autoplay-title" },
      h("h2", { id: "autoplay-title", text: t("autoplay.title") }),
      form,
    );
    const close = () => {
      dialog.close();
      dialog.remove();
    };
    const value = (id) => dialog.querySelector(`#${id}`).value.trim();
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const rounds = Number(value("autoplay-rounds"));
      const loss = value("autoplay-loss") ? parseMoney(value("autoplay-loss")) : 0;
      const win = value("autoplay-win") ? parseMoney(value("autoplay-win")) : 0;
      const alert = alerting ? Number(value("autoplay-alert")) : 0;
      const bad =
        !Number.isInteger(rounds) || rounds < 1 || rounds > most || loss === null || win === null || (alerting && (!loss || !(alert >= 1)));
      if (bad) {
        message.textContent = t("autoplay.invalid", { most });
        return;
      }
      close();
      auto.start({ stakes: bets, rounds, loss, win, alert }, balance());
      stop.focus();
      announce(t("autoplay.started", { n: rounds }));
      run(auto);
    });
    document.body.append(dialog);
    dialog.showModal();
  }

  draw();
  return { start, stop };
}
