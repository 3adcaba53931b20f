// A player-banked seat (SPEC §7, seed 000 "Spielen als Geber"): the player bets and deals,
// the banker approves each round (or turns on AUTO-APPROVE) and sees the table from the
// dealer's side. The server is authoritative: everything shown comes from the seat's
// socket (/api/seats/{id}/ws), which also carries the actions. A timer circle counts down
// whoever's decision it is, and 10 s before the end it is said to them (the time is SPEC's
// and the other player waits: it cannot be extended, the help page says why).

import * as api from "./api.js";
import { Bets, checkBets, chipsFor, SPOTS } from "./betting.js";
import { seatSeedDue } from "./clientseed.js";
import { announce, enterView, fill, h, reducedMotion } from "./dom.js";
import {
  BACK_ICON,
  controlsView,
  drawStake,
  feltView,
  headLinks,
  icon,
  markChip,
  messageView,
  metersView,
  rackView,
  sayMessage,
  setControls,
  showLast,
  showMessage,
} from "./felt.js";
import { checkText, errorText } from "./errors.js";
import { loginFirst } from "./gate.js";
import { money, number, signedMoney, t } from "./i18n.js";
import { keyOf, listenKeys } from "./keys.js";
import { refresh as keepReceipts, keepShown } from "./receipts.js";
import { resultText, revealRound, showBanner } from "./reveal.js";
import { limitsText, tableName } from "./rulesinfo.js";
import { ensureStyles, percentText } from "./seats-lobby.js";
import { sounds } from "./sound.js";
import * as store from "./state.js";

const RING = 2 * Math.PI * 26;
// Seconds left when the one whose decision it is hears that their time runs out.
const WARN_S = 10;
const SYNC_MS = 250;
// Reconnecting after a drop: 0.25 s, doubling to 4 s (the server keeps the seat for its
// reconnect grace, 10 s by default, so a reload or a short outage loses nothing).
const RETRY_MS = [250, 500, 1000, 2000, 4000];

class SeatView {
  constructor(root, seatId, tbl) {
    this.root = root;
    this.seatId = seatId;
    this.tbl = tbl;
    this.msg = null; // the seat's state message: {seat, you, private, allowed_actions}
    this.bets = new Bets(tbl.chips);
    this.chip = tbl.chips[0];
    this.lastBets = null;
    this.shownRound = null;
    this.result = null; // {net, points} of the last round, for the receiver
    this.deadline = null;
    this.pending = new Map();
    this.ids = 0;
    this.seedsSent = new Set(); // the seat commitments this browser gave a client seed for
    this.syncTimer = null;
    this.busy = false;
    this.closed = false;
    this.left = false;
    this.retries = 0;
    this.note = { text: "", kind: "" };
    this.warned = false; // the time's warning was said for the current decision
    this.ticker = setInterval(() => this.tick(), 200);
    // The keys press the player's chips, spots and buttons, the banker's APPROVE.
    this.stopKeys = listenKeys(() => this.el);
  }

  // ---- the socket ------------------------------------------------------------------------

  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/api/seats/${encodeURIComponent(this.seatId)}/ws`);
    this.socket = socket;
    socket.onmessage = (event) => this.receive(JSON.parse(event.data));
    socket.onopen = () => {
      this.retries = 0;
      this.fresh = true;
      if (this.note.kind === "lost") this.say("");
    };
    socket.onclose = (event) => {
      for (const [, reject] of this.pending.values()) reject(new api.ApiError(0, "network_error", ""));
      this.pending.clear();
      if (this.closed || this.left) return;
      if (event.code === 4001 || event.code === 4409 || event.code === 4404 || event.code === 4401) {
        this.leftTable();
        return;
      }
      this.say(t("banked.connection_lost"), "lost");
      const wait = RETRY_MS[Math.min(this.retries++, RETRY_MS.length - 1)];
      setTimeout(() => !this.closed && !this.left && this.connect(), wait);
    };
  }

  send(action, params = {}) {
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(new api.ApiError(0, "network_error", ""));
        return;
      }
      const id = ++this.ids;
      this.pending.set(id, [resolve, reject]);
      this.socket.send(JSON.stringify({ id, action, ...params }));
    });
  }

  receive(message) {
    if (message.type === "reply") {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.ok) waiting[0](message.result);
      else {
        const e = message.error || {};
        waiting[1](new api.ApiError(409, e.code, e.message, e.details));
      }
    } else if (message.type === "state") {
      if (this.msg && message.seat.version < this.msg.seat.version) return;
      const before = this.msg;
      this.msg = message;
      if (message.seat.timer) this.deadline = performance.now() + message.seat.timer.remaining_ms;
      else this.deadline = null;
      if (message.you === null) {
        this.leftTable();
        return;
      }
      this.role = message.you;
      // The seat's state carries the server's balance: the header shows it at once.
      if (message.private && typeof message.private.balance === "number") {
        store.setBalance(message.seat.mode, message.private.balance);
      }
      this.adopt();
      this.giveSeed();
      this.stateChanged(before);
      this.update();
    } else if (message.type === "round") {
      this.showRound(message);
    } else if (message.type === "error") {
      this.say(errorText({ code: message.error.code, details: message.error.details }), "error");
      if (message.error.code === "not_seated") this.leftTable();
    }
  }

  /**
   * The first state after a (re)connect: bets the server holds (in escrow) that this page
   * does not show (a reload) go on the felt, so the balance and the next chip are right.
   */
  adopt() {
    if (!this.fresh) return;
    this.fresh = false;
    const seat = this.msg.seat;
    if (this.you === "player" && seat.phase === "betting" && seat.stake > 0 && this.bets.isEmpty()) {
      this.bets.set(seat.bets || {});
      this.shownRound = null;
    }
  }

  // The pair's seed is committed as it forms: this browser gives it a fresh client seed.
  giveSeed() {
    keepShown(this.msg.seat.fairness?.commitment, this.msg.seat.mode, this.tbl.id);
    const seed = seatSeedDue(this.msg.seat.fairness, this.msg.you, this.seedsSent);
    if (seed !== null) this.send("client_seed", { client_seed: seed }).catch(() => {});
  }

  stateChanged(before) {
    const seat = this.msg.seat;
    const notice = seat.notice;
    // Sitting down (or back, after a reload): who the player is here and what the seat
    // waits for, said once; then what changed (another sat down, approved, left...).
    const said = before ? [] : [this.statusText()];
    if (notice && (!before || before.seat.version !== seat.version)) {
      said.push(noticeText(notice, this.msg.you, seat.reserved));
      if (notice.code === "approved" && this.msg.you === "player") sounds.chip();
    }
    const text = said.filter(Boolean).join(" ");
    if (text) this.say(text, "info");
    // A new round for the player: the felt is cleared when betting opens.
    if (this.msg.you === "player" && seat.phase === "betting" && before && before.seat.phase !== "betting") {
      if (seat.stake === 0) this.bets.reset();
    }
  }

  // ---- drawing -----------------------------------------------------------------------------

  draw() {
    const tbl = this.tbl;
    const on = { add: (name) => this.addChip(name), remove: (name) => this.removeChip(name) };
    const info = (key, label) => h("div", { class: "kv" }, h("dt", { text: t(label) }), h("dd", { "data-info": key }));
    this.el = h(
      "section",
      { class: "table-view seat-view", "data-seat": this.seatId, "aria-labelledby": "seat-title" },
      h(
        "div",
        { class: "table-head" },
        h(
          "button",
          { class: "btn small with-icon", "data-action": "leave", onclick: () => this.leave() },
          icon(BACK_ICON),
          h("span", { class: "link-text", text: t("banked.back") }),
        ),
        h(
          "div",
          { class: "table-name" },
          h("h1", { id: "seat-title", text: this.title() }),
          h("p", { class: "muted", text: limitsText(tbl.limits) }),
        ),
        headLinks(tbl),
      ),
      // The keyboard's order: the rack, the spots, then the buttons (DEAL after the spots).
      h(
        "div",
        { class: "rack-row" },
        rackView(tbl.chips, this.chip, (value) => {
          this.chip = value;
          sounds.chip();
          this.update();
        }),
      ),
      h(
        "div",
        { class: "seat-layout" },
        feltView(tbl, on, { top: h("p", { class: "view-note", "data-dealer-view": "" }), removable: false }),
        h(
          "aside",
          { class: "panel seat-info" },
          h(
            "dl",
            { class: "kvs" },
            info("message", "banked.message"),
            info("opponent", "banked.opponent"),
            info("points", "banked.points"),
            info("balance", "meter.balance"),
            info("fee", "banked.fee"),
            info("last", "banked.last_round"),
          ),
          // The timer circle, in the lower right corner (seed 000 "Zeituhr").
          h("div", { class: "timer", role: "timer", "data-timer": "" }, h("svg", null), h("span", { class: "timer-text" })),
        ),
      ),
      h(
        "div",
        { class: "player-controls" },
        controlsView(
          [
            ["undo", "btn.undo"],
            ["clear", "btn.clear"],
            ["rebet", "btn.rebet"],
            ["deal", "btn.deal"],
          ],
          (action) => this.act(action),
          "controls seat-controls",
        ),
      ),
      h(
        "div",
        { class: "banker-controls" },
        h("button", {
          class: "btn primary approve",
          "data-action": "approve",
          "aria-keyshortcuts": keyOf("approve"),
          text: t("banked.approve"),
          onclick: () => this.approve(),
        }),
        h("button", {
          class: "btn",
          "data-action": "auto-approve",
          "aria-pressed": "false",
          text: t("banked.auto_approve"),
          onclick: () => this.toggleAuto(),
        }),
      ),
      metersView(),
      messageView(),
    );
    this.drawTimer();
    fill(this.root, this.el);
    this.update();
  }

  drawTimer() {
    // The parser gives the markup its SVG namespace (a constant string, no data in it).
    const holder = document.createElement("div");
    holder.innerHTML =
      '<svg viewBox="0 0 60 60" aria-hidden="true"><circle class="ring-back" cx="30" cy="30" r="26"></circle>' +
      `<circle class="ring" cx="30" cy="30" r="26" stroke-dasharray="${RING}"></circle></svg>`;
    this.$("[data-timer] svg").replaceWith(holder.firstChild);
  }

  $(selector) {
    return this.el.querySelector(selector);
  }

  relabel() {
    this.draw();
    if (this.shownRound) revealRound(this.el, this.shownRound, "instant");
  }

  get you() {
    return this.msg ? this.msg.you : null;
  }

  /** What is on the felt: the player's own chips, or (for the banker) the bets placed. */
  felt() {
    if (this.you === "player" && this.msg.seat.phase === "betting") return this.bets.amounts();
    return (this.msg && this.msg.seat.bets) || {};
  }

  update() {
    if (!this.el || !this.msg) return;
    const { seat, you } = this.msg;
    const mine = this.msg.private || {};
    const other = you === "player" ? seat.banker : seat.player;
    const banker = you === "banker";
    this.el.dataset.role = you || "";
    this.el.dataset.phase = seat.phase;
    this.el.dataset.busy = String(this.busy);
    this.$("#seat-title").textContent = this.title();
    this.$(".felt").classList.toggle("dealer-view", banker);
    this.$("[data-dealer-view]").textContent = banker ? t("banked.dealer_view") : "";
    // The bets on the felt.
    const felt = this.felt();
    const showing = this.shownRound && !Object.keys(felt).length ? this.shownRound.bets : null;
    for (const name of SPOTS) {
      const amount = showing ? (showing[name] ? showing[name].stake : 0) : felt[name] || 0;
      const chips = you === "player" && !showing && seat.phase === "betting" ? this.bets.stacks[name] : chipsFor(amount, this.tbl.chips);
      drawStake(this.el, name, chips, amount, this.chip);
    }
    // The information fields of the help page.
    this.info("message", this.statusText());
    this.info("opponent", other ? other.nickname : t("banked.nobody"));
    const myPoints = you === "player" ? seat.player?.points : seat.banker?.points;
    this.info("points", t("banked.points_text", { you: number(myPoints ?? 0), them: other ? number(other.points) : t("banked.nobody") }));
    // The balance's rule (help.meter_balance): the chips on the felt are out of it, and so is
    // the banker's reserve for an open round (said as such until the round settles).
    const balance = mine.balance == null ? null : mine.balance - this.unsynced();
    const reserved = banker ? seat.reserved || 0 : 0;
    this.info(
      "balance",
      balance == null
        ? ""
        : reserved
          ? t("banked.balance_reserved", { balance: money(balance), reserved: money(reserved) })
          : money(balance),
    );
    if (balance != null) store.setOnFelt(seat.mode, this.unsynced());
    // The server's fee on the bets it holds (exact cents, rounded as the casino takes it).
    this.info("fee", t("banked.fee_rule", { percent: percentText(seat.terms), amount: money(seat.fee) }));
    const last = seat.last_round;
    this.info(
      "last",
      last
        ? t("banked.last_round_text", { player: signedMoney(last.results.player.net), banker: signedMoney(last.results.banker.net) })
        : t("banked.nobody"),
    );
    // Meters.
    const stake = this.total();
    this.$('[data-meter="bet"]').textContent = money(stake);
    this.$('[data-meter="balance"]').textContent = balance == null ? "" : money(balance);
    this.$('[data-meter="win"]').textContent = money(this.result ? Math.max(0, this.result.win) : 0);
    showLast(this.el, this.result ? this.result.net : null);
    // Controls. A focused one that goes off keeps the focus while a request is out and, for
    // the banker, until APPROVE comes back; the player's goes to DEAL or the chip chosen.
    this.$(".player-controls").hidden = you !== "player";
    this.$(".seat-view > .rack-row").hidden = you !== "player";
    this.$(".banker-controls").hidden = you !== "banker";
    const on = this.enabled();
    const controls = Object.entries(on)
      .filter(([action]) => action !== "bets")
      .map(([action, yes]) => [this.$(`[data-action="${action}"]`), yes]);
    for (const name of SPOTS) {
      const spot = this.$(`[data-spot="${name}"]`);
      controls.push([spot, on.bets]);
      // The banker bets nothing: their spots promise no key.
      if (banker) spot.removeAttribute("aria-keyshortcuts");
    }
    markChip(this.el, this.chip);
    setControls(controls, { hold: this.busy || banker, next: () => this.nextControl() });
    const auto = this.$('[data-action="auto-approve"]');
    auto.setAttribute("aria-pressed", String(Boolean(seat.banker && seat.banker.auto_approve)));
    showMessage(this.el, this.note);
    this.tick();
  }

  /** Which controls may be used: what the server allows, the felt's bets, no request out. */
  enabled() {
    const idle = !this.busy;
    const betting = this.can("bets") && idle;
    return {
      bets: betting,
      undo: betting && this.bets.history.length > 0,
      clear: betting && !this.bets.isEmpty(),
      rebet: betting && Boolean(this.lastBets),
      deal: this.can("deal") && idle && !this.bets.isEmpty() && !this.problem(),
      approve: this.can("approve") && idle,
      "auto-approve": this.can("auto_approve") && idle,
    };
  }

  /** The player's next control: DEAL once there are bets, else the chip chosen. */
  nextControl() {
    if (this.you !== "player") return null;
    if (this.enabled().deal) return this.$('[data-action="deal"]');
    return this.$(`[data-chip="${this.chip}"]`);
  }

  /** Whether the server says this participant may take this action now (never re-derived). */
  can(action) {
    return Boolean(this.msg && (this.msg.allowed_actions || []).includes(action));
  }

  info(key, text) {
    this.$(`[data-info="${key}"]`).textContent = text;
  }

  total() {
    return Object.values(this.felt()).reduce((a, b) => a + b, 0);
  }

  /** Chips on the felt the server does not hold yet (their money is still in the balance). */
  unsynced() {
    if (this.you !== "player" || !this.msg || this.msg.seat.phase !== "betting") return 0;
    return this.bets.total() - (this.msg.seat.stake || 0);
  }

  tick() {
    if (!this.el || !this.msg) return;
    const timer = this.msg.seat.timer;
    const box = this.$("[data-timer]");
    box.hidden = !timer;
    if (!timer) return;
    const left = Math.max(0, (this.deadline ?? performance.now()) - performance.now());
    const seconds = Math.ceil(left / 1000);
    const ring = box.querySelector(".ring");
    ring.setAttribute("stroke-dashoffset", String(RING * (1 - left / (timer.seconds * 1000))));
    box.querySelector(".timer-text").textContent = t("banked.timer", { seconds });
    box.dataset.mine = String(timer.role === this.you);
    box.dataset.urgent = String(seconds <= WARN_S);
    // Once per decision, to the one whose decision it is: the time is running out.
    if (seconds > WARN_S) this.warned = false;
    else if (!this.warned && seconds > 0 && timer.role === this.you) {
      this.warned = true;
      announce(t(`announce.time_left_${timer.role}`, { seconds }));
    }
    box.dataset.seconds = String(seconds);
    box.setAttribute("aria-label", t("banked.timer_label", { role: t(`banked.as_${timer.role}`), seconds }));
  }

  /** The seat's name: its table's and its number (the id's, until the server's state says). */
  title() {
    const n = this.msg ? this.msg.seat.number : (/\.(\d+)$/.exec(this.seatId) || [])[1];
    return t("banked.seat_title", { table: tableName(this.tbl), n });
  }

  /** Who the player is here and what the seat waits for (the help page's "message" field). */
  statusText() {
    const { seat, you } = this.msg;
    const status = seat.phase === "waiting" ? `waiting_${you}` : `${seat.phase}_${you}`;
    return `${t(you === "banker" ? "banked.you_banker" : "banked.you_player")}. ${t(`banked.status.${status}`)}`;
  }

  /** The message line; a screen reader hears it too, but not a round's result (the banner's sentence says it). */
  say(text, kind = "info") {
    this.note = { text, kind };
    sayMessage(this.el, this.note);
  }

  // ---- actions -----------------------------------------------------------------------------

  addChip(name) {
    if (!this.can("bets") || this.busy) return;
    this.shownRound = null;
    this.bets.add(name, this.chip);
    sounds.chip();
    this.changedBets();
  }

  removeChip(name) {
    if (!this.can("bets") || this.busy) return;
    if (this.bets.remove(name)) this.changedBets();
  }

  /** Why the felt's bets may not be dealt (the table's limits, the balance), or null. */
  problem() {
    if (!this.msg || !this.msg.private) return null;
    return checkBets(this.bets.amounts(), this.tbl, (this.msg.private.balance ?? 0) + (this.msg.seat.stake || 0));
  }

  changedBets() {
    const problem = this.bets.isEmpty() ? null : this.problem();
    if (problem) this.say(checkText(problem), "warn");
    else if (this.note.kind === "warn") this.say("");
    this.update();
    clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(() => this.syncBets(), SYNC_MS);
  }

  /** Show the banker the chips: the bets placed go to the server (held until dealt). */
  async syncBets() {
    const amounts = this.bets.amounts();
    if (checkBets(amounts, this.tbl, null) && !this.bets.isEmpty()) return;
    try {
      await this.send("bets", { bets: amounts });
    } catch (error) {
      if (error.code !== "network_error") this.say(errorText(error), "error");
    }
  }

  async act(action) {
    if (!this.enabled()[action]) return;
    if (action === "undo") this.bets.undo();
    else if (action === "clear") this.bets.clear();
    else if (action === "rebet" && this.lastBets) this.bets.set(this.lastBets);
    else if (action === "deal") {
      await this.deal();
      return;
    }
    this.changedBets();
  }

  async deal() {
    const amounts = this.bets.amounts();
    const problem = this.problem();
    if (problem) {
      this.say(checkText(problem), "error");
      sounds.error();
      return;
    }
    clearTimeout(this.syncTimer);
    this.busy = true;
    this.update();
    try {
      await this.send("deal", { bets: amounts, key: api.newKey() });
      this.lastBets = amounts;
    } catch (error) {
      this.say(errorText(error), "error");
      sounds.error();
    } finally {
      this.busy = false;
      this.update();
    }
  }

  async approve() {
    if (!this.enabled().approve) return;
    this.busy = true;
    this.update();
    try {
      await this.send("approve");
    } catch (error) {
      this.say(errorText(error), "error");
    } finally {
      this.busy = false;
      this.update();
    }
  }

  async toggleAuto() {
    if (!this.enabled()["auto-approve"]) return;
    const on = !(this.msg.seat.banker && this.msg.seat.banker.auto_approve);
    try {
      await this.send("auto_approve", { on });
      this.say(t(on ? "banked.notice.auto_on" : "banked.notice.auto_off"));
    } catch (error) {
      this.say(errorText(error), "error");
    }
  }

  async leave() {
    try {
      await this.send("leave");
    } catch {
      // Closing the socket leaves the seat too.
    }
    this.closed = true;
    if (this.socket) this.socket.close();
    location.hash = "#/";
  }

  async showRound(message) {
    const round = message.round;
    const you = message.you;
    const mine = message.private || {};
    this.bets.reset();
    this.shownRound = round;
    this.result = { net: mine.net ?? 0, win: you === "player" ? round.win : (mine.net ?? 0) };
    store.hold(true); // the header learns the result when the reveal ends
    if (this.el) {
      this.update();
      await revealRound(this.el, round, reducedMotion() ? "instant" : "deal");
    }
    store.hold(false);
    showBanner(this.el, round, mine.net ?? 0, you);
    // The round's one announcement: the banner's, in a sentence.
    announce(resultText(round, mine.net ?? 0, you));
    this.say(
      t("banked.last_round_text", { player: signedMoney(round.results.player.net), banker: signedMoney(round.results.banker.net) }),
      "result",
    );
    this.el.dataset.round = round.id;
    this.update();
  }

  leftTable() {
    if (this.left) return;
    this.left = true;
    store.setOnFelt(null, 0);
    clearInterval(this.ticker);
    this.stopKeys();
    const notice = this.msg && this.msg.seat.notice;
    fill(
      this.root,
      h(
        "section",
        { class: "panel narrow seat-left", "data-left": "" },
        h("h1", { text: t("banked.you_left") }),
        notice ? h("p", { "data-left-notice": "", text: leftText(notice, this.role) }) : null,
        h("a", { class: "btn primary", href: "#/", text: t("nav.lobby") }),
      ),
    );
    // A view of its own: named in the title, its heading focused (the seat's controls went).
    enterView(this.root, t("app.title"));
    if (this.socket) this.socket.close();
    store.refreshWallet().catch(() => {});
  }

  destroy() {
    this.closed = true;
    store.setOnFelt(null, 0);
    clearInterval(this.ticker);
    this.stopKeys();
    clearTimeout(this.syncTimer);
    if (this.socket) this.socket.close();
  }
}

/** Why this player left: their own timeout in their words, anyone else's by nickname. */
function leftText(notice, role) {
  if (notice.code === `${role}_timeout`) return t(`banked.notice.you_${role}_timeout`);
  return noticeText(notice, null);
}

function noticeText(notice, you, reserved = 0) {
  const params = { nickname: notice.nickname ?? "" };
  switch (notice.code) {
    case "joined":
      return you && notice.role !== you ? t("banked.notice.joined", params) : "";
    case "approved":
      return you === "banker" && reserved
        ? t("banked.notice.approved_reserved", { reserved: money(reserved) })
        : t("banked.notice.approved");
    case "banker_disconnected":
    case "banker_left":
      return notice.round_goes_on
        ? `${t(`banked.notice.${notice.code}`, params)} ${t("banked.notice.goes_on")}`
        : t(`banked.notice.${notice.code}`, params);
    case "banker_timeout":
    case "player_timeout":
    case "player_left":
    case "player_disconnected":
      return t(`banked.notice.${notice.code}`, params);
    case "banker_points_too_low":
    case "banker_balance_too_low":
      return errorText({ code: notice.code, details: notice });
    default:
      return "";
  }
}

export async function render(root, seatId) {
  ensureStyles();
  if (loginFirst(root)) return null;
  const tableId = String(seatId || "").replace(/\.\d+$/, "");
  const tbl = await store.table(tableId);
  if (!tbl || !tbl.banked) {
    root.append(h("p", { class: "message", role: "alert", text: t("error.unknown_seat") }));
    return null;
  }
  // The commitments in force, kept as receipts before the first deal at the seat.
  keepReceipts(tableId);
  const view = new SeatView(root, seatId, tbl);
  view.draw();
  view.connect();
  return view;
}
