// A shared table (SPEC §9): one shoe on the server's clock, every player betting on the same
// coup. The felt is the house table's (felt.js, reveal.js, roads.js); what differs is the
// clock: the table's socket (/api/tables/{id}/ws) says when a window opens and closes, the
// totals on each spot, the cards once dealt and the player's own result. The chips a player
// puts on the felt are sent at once (PUT .../coups/{coup}/bets, the stake taken then); they
// are live when the window closes, without a confirmation. A page that reconnects starts
// from the table's state. What happens is said as it is shown (the window opening, closing
// soon, closed; the bets taken or refused; the result), and the keys are the house table's.

import * as api from "./api.js";
import { Bets, spotsOf } from "./betting.js";
import { announce, fill, h, loadStyles, reducedMotion } from "./dom.js";
import { drawStake, feltView, limitsLine, markChip, rackView, sayMessage, setControls, showLast, showMessage, tableView } from "./felt.js";
import { errorText } from "./errors.js";
import { money, t } from "./i18n.js";
import { listenKeys } from "./keys.js";
import { option } from "./options.js";
import { keepShown } from "./receipts.js";
import { clearRound, resultText, revealRound, showBanner } from "./reveal.js";
import { feeOf, lightningText, wageredOf } from "./lightning.js";
import { Position } from "./position.js";
import { favouritesView, placeTools } from "./favourites.js";
import { Autoplay, autoplayView } from "./autoplay.js";
import { Latency } from "./latency.js";
import { beforeFirstWager } from "./rgfirst.js";
import { showRoads } from "./roads.js";
import { tableName } from "./rulesinfo.js";
import { sounds } from "./sound.js";
import * as store from "./state.js";

const BUTTONS = [
  ["undo", "btn.undo"],
  ["clear", "btn.clear"],
  ["double", "btn.double"],
  ["rebet", "btn.rebet"],
];
const SEND_MS = 250; // chips put down within this time go to the server together
const RECONNECT_MS = 1000;
// Seconds left in a window when a player who may bet hears that it is closing.
const WARN_S = 5;

const sum = (amounts) => Object.values(amounts || {}).reduce((a, b) => a + b, 0);
const tablePath = (tbl) => `/api/tables/${encodeURIComponent(tbl.id)}`;

/** Seconds left until `at` (microseconds, the server's clock) given the clock's offset. */
const secondsLeft = (at, offset) => Math.max(0, Math.ceil((at - (Date.now() * 1000 + offset)) / 1e6));

/** The shoe box: the shoe, its cards left, and what fixes its order (the fairness panel's
 * short line; its title says what that does and does not guarantee). */
function drawShoe(box, shoe) {
  if (!shoe) {
    fill(box);
    box.removeAttribute("title");
    return;
  }
  const beacon = shoe.beacon;
  const round = beacon ? beacon.round : null;
  const fairText = !beacon
    ? t("shared.fair_offline")
    : beacon.entered
      ? t("shared.fair_beacon", { round })
      : t("shared.beacon_wait", { round });
  fill(box, h("span", { text: t("shared.shoe", { n: shoe.id, left: shoe.cards_left }) }), h("small", { "data-fair": "", text: fairText }));
  box.title = beacon ? t("shared.fair_beacon_long", { round }) : t("shared.fair_offline_long");
}

class SharedView {
  constructor(root, tbl) {
    this.root = root;
    this.tbl = tbl;
    this.bets = new Bets(tbl.chips, spotsOf(tbl));
    this.chip = tbl.chips[0];
    this.mode = store.state.mode;
    this.state = null; // the table as the server last said (state, then events)
    this.offset = 0; // the server's clock less this page's, in microseconds
    this.placed = {}; // the stakes the server holds for this player on the coup
    this.lastBets = null; // the stakes of the player's last settled coup (REBET)
    this.lastNet = null;
    this.outcome = null; // the player's own result of the coup shown: {round, net}
    this.win = 0;
    this.sending = null;
    this.queued = false;
    this.msg = { text: "", kind: "" };
    this.warned = true; // the window's closing was said (warnFrom)
    this.alive = true;
    this.socket = null;
    this.onStore = () => this.storeChanged();
    this.position = new Position(); // the session's net position and time, where shown
    // An autoplay bets the same on each coup (one placement per coup: js/autoplay.js).
    this.auto = new Autoplay({ changed: () => this.update(), say: (text, kind) => this.say(text, kind) });
    this.autoRound = 0; // the autoplay's number of the coup's bets, while they wait for it
    this.autoBefore = null; // the balance before them
    this.latency = new Latency(); // the socket's round trip, where the profile shows it
  }

  start() {
    this.draw();
    store.onChange(this.onStore);
    this.timer = setInterval(() => this.drawClock(), 250);
    // The keys press the chips, the spots and the buttons; the bets they change are said as
    // the casino takes them ("Your bets are placed"), and a key that may not bet now says why.
    this.stopKeys = listenKeys(() => this.el, { quiet: true, refused: () => this.closedNow() });
    this.connect();
    return this;
  }

  destroy() {
    this.alive = false;
    this.auto.stop("you");
    this.latency.stop();
    clearInterval(this.timer);
    this.position.stop();
    this.stopKeys();
    store.offChange(this.onStore);
    if (this.socket) this.socket.close();
  }

  relabel() {
    this.draw();
  }

  storeChanged() {
    if (store.state.mode !== this.mode) {
      this.mode = store.state.mode;
      this.bets.reset();
      this.placed = {};
      if (this.socket) this.socket.close(); // reconnects in the new mode
    }
    this.update();
  }

  // ---- the table's socket ------------------------------------------------------------

  connect() {
    if (!this.alive) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${location.host}${tablePath(this.tbl)}/ws?mode=${this.mode}`;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onmessage = (event) => this.event(JSON.parse(event.data));
    this.latency.watch(socket);
    socket.onclose = () => {
      if (this.socket === socket) this.auto.stop("offline"); // its coups are not followed now
      if (this.socket === socket && this.alive) setTimeout(() => this.connect(), RECONNECT_MS);
    };
  }

  event(message) {
    if (!this.alive) return;
    const s = this.state;
    switch (message.type) {
      case "state":
        this.fromState(message);
        break;
      case "open":
        this.sync(message.server_time);
        Object.assign(s, { phase: "betting", coup: message.coup, number: message.number, closes_at: message.closes_at, result: null });
        Object.assign(s, { players: 0, totals: {} });
        this.newCoup();
        this.say(t("shared.place_bets"));
        this.autoBet();
        break;
      case "totals":
        Object.assign(s, { players: message.players, totals: message.totals });
        break;
      case "closed":
        this.closeWindow();
        break;
      case "dealt":
        this.sync(message.server_time);
        this.closeWindow(); // a close not told apart (the coup was dealt as it closed)
        Object.assign(s, { phase: "dealt", result: message.result, next_at: message.next_at });
        this.reveal(message.result);
        break;
      case "settled":
        this.settled(message.you);
        break;
      case "shoe":
        s.shoe = message.shoe;
        if (message.shoe && message.shoe.coups_dealt === 0) this.say(t("shared.new_shoe"));
        break;
      case "idle":
        s.phase = "idle";
        break;
      case "pong":
        this.latency.pong();
        return;
      default:
        return;
    }
    this.update();
  }

  /** The window closed: said once, whether the socket told the close or only the deal. */
  closeWindow() {
    if (this.state.phase !== "betting") return;
    this.state.phase = "closed";
    this.say(t("shared.no_more_bets"));
  }

  sync(serverTime) {
    if (typeof serverTime === "number") this.offset = serverTime - Date.now() * 1000;
  }

  fromState(state) {
    this.position.refresh(this.mode); // (the socket's state: at the start and on reconnecting)
    this.sync(state.server_time);
    this.state = state;
    // The player's own bets on the coup stay on the felt until the next window opens, as
    // when they were placed: a page opened during the result shows them, and (once the coup
    // is settled) the player's own result, as the socket's `settled` told it.
    const you = state.you || null;
    this.placed = { ...(you ? you.bets : {}) };
    this.bets.reset();
    this.bets.set(this.placed);
    this.bets.history = [];
    this.outcome = null;
    this.warnFrom();
    this.showCoup();
    this.say(state.phase === "betting" ? t("shared.place_bets") : t("shared.wait_next"));
    this.showRoads();
    if (state.phase !== "betting" && state.result && you && you.round_id) this.settled(you);
  }

  /** The coup's result on the felt (none while betting), with the player's own once known. */
  showCoup() {
    if (!this.el) return;
    clearRound(this.el);
    const result = this.state && this.state.phase !== "betting" ? this.state.result : null;
    if (!result) return;
    const round = this.outcome ? this.outcome.round : this.roundOf(result);
    revealRound(this.el, round, "instant");
    showBanner(this.el, round, this.outcome ? this.outcome.net : null);
  }

  /** A coup's result as the felt shows a round: the hands, the winner, the player's bets. */
  roundOf(result, bets = {}) {
    return { player: result.player, banker: result.banker, winner: result.winner, lightning: result.lightning || [], bets };
  }

  newCoup() {
    this.warnFrom();
    this.placed = {};
    this.bets.reset();
    this.win = 0;
    this.outcome = null;
    if (this.el) clearRound(this.el);
  }

  async reveal(result) {
    this.say("");
    // A multiplier table's cards, drawn as betting closed: said once, before the first card.
    if (result.lightning && result.lightning.length) announce(lightningText(result.lightning));
    const how = option("squeeze") ? "squeeze" : reducedMotion() ? "instant" : option("fast") ? "fast" : "deal";
    this.revealing = revealRound(this.el, this.roundOf(result), how);
    await this.revealing;
    this.showRoads();
  }

  /** The player's own result of the coup just dealt (none: they did not bet on it). */
  async settled(you) {
    await this.revealing;
    const result = this.state && this.state.result;
    if (!this.alive || !result) return;
    if (!you || !you.round_id) {
      if (this.autoRound) this.auto.stop("refused"); // its bets did not stand for the coup
      this.autoRound = 0;
      showBanner(this.el, this.roundOf(result), null);
      announce(resultText(this.roundOf(result), null));
      return;
    }
    let round = null;
    try {
      round = await api.get(`/api/rounds/${encodeURIComponent(you.round_id)}`);
    } catch {
      round = null;
    }
    if (!this.alive) return;
    const shown = round || this.roundOf(result);
    this.win = you.returned ?? 0;
    this.lastNet = this.win - you.stake - (you.fee ?? 0);
    this.lastBets = round ? Object.fromEntries(Object.entries(round.bets).map(([name, bet]) => [name, bet.stake])) : this.lastBets;
    this.outcome = { round: shown, net: this.lastNet };
    this.position.refresh(this.mode);
    if (this.autoRound) {
      const before = this.autoBefore;
      this.autoRound = 0;
      const after = before == null ? null : before - you.stake - (you.fee ?? 0) + (you.returned ?? 0);
      this.auto.settled({ before, after, stake: you.stake, win: you.returned ?? 0 });
    }
    this.showCoup();
    announce(resultText(shown, this.lastNet));
    store.refreshWallet();
    this.update();
  }

  // ---- bets --------------------------------------------------------------------------

  get betting() {
    return Boolean(this.state && this.state.phase === "betting");
  }

  /** Why the felt takes no change now, said (betting is closed, no one is logged in), or false. */
  closedNow() {
    if (!this.betting) this.say(t("shared.wait_next"), "warn");
    else if (!store.state.user) this.say(t("table.login_first"), "warn");
    else return false;
    return true;
  }

  /** A change of the felt's bets, sent to the casino; what it takes or refuses is said then. */
  change(edit) {
    if (this.closedNow()) return;
    edit();
    sounds.chip();
    this.update();
    this.send();
  }

  /**
   * Send the felt's bets (after SEND_MS, together); one request at a time. Where the profile
   * shows the responsible-gaming tools before the first real-money wager (Malta), nothing
   * is sent before the player has read them.
   */
  send() {
    if (this.sending) {
      this.queued = true;
      return;
    }
    this.sending = beforeFirstWager(this.mode)
      .then(() => new Promise((resolve) => setTimeout(resolve, SEND_MS)))
      .then(() => this.put());
  }

  async put() {
    const coup = this.state && this.state.coup;
    const amounts = this.bets.amounts();
    try {
      const autoplay = this.autoRound || undefined; // (an autoplay's bets say their number)
      const answer = await api.request("PUT", `${tablePath(this.tbl)}/coups/${coup}/bets`, {
        body: { mode: this.mode, bets: amounts, autoplay },
        headers: { "Idempotency-Key": api.newKey() },
      });
      if (!this.alive || !this.state || this.state.coup !== coup) return;
      const had = sum(this.placed);
      this.placed = answer.bets;
      if (autoplay) this.autoBefore = answer.balance + answer.stake + (answer.fee ?? 0);
      store.setBalance(this.mode, answer.balance);
      if (sum(answer.bets)) this.say(t("shared.placed", { amount: money(answer.stake) }));
      else if (had) this.say(t("shared.withdrawn"));
    } catch (error) {
      if (!this.alive) return;
      // Refused: the server holds what it held; the felt shows that again.
      this.bets.reset();
      if (this.betting) this.bets.set(this.placed);
      this.say(error.code === "betting_closed" ? t("shared.late") : errorText(error), "error");
      if (this.autoRound) this.auto.refused(this.msg.text);
      sounds.error();
    } finally {
      this.sending = null;
      if (this.queued && this.alive) {
        this.queued = false;
        this.send();
      }
      this.update();
    }
  }

  /** An autoplay's bets on the coup open now (one placement a coup), if it goes on. */
  autoBet() {
    if (!this.betting || this.autoRound) return;
    const n = this.auto.next();
    if (!n) return;
    this.autoRound = n;
    this.change(() => {
      this.bets.reset();
      this.bets.set(this.auto.stakes);
    });
  }

  act(action) {
    const stakes = this.lastBets;
    const edits = {
      undo: () => this.bets.undo(),
      clear: () => this.bets.clear(),
      double: () => this.bets.double(),
      rebet: () => stakes && this.bets.set(stakes),
    };
    if (edits[action]) this.change(edits[action]);
  }

  // ---- drawing -----------------------------------------------------------------------

  draw() {
    const tbl = this.tbl;
    const on = {
      add: (name) => this.change(() => this.bets.add(name, this.chip)),
      remove: (name) => this.change(() => this.bets.remove(name)),
    };
    const rack = rackView(tbl.chips, this.chip, (value) => {
      this.chip = value;
      this.update();
    });
    const live = h(
      "div",
      { class: "shared-live", "data-live": "", role: "group", "aria-label": t("shared.live") },
      h(
        "div",
        { class: "shared-clock" },
        h("span", { class: "shared-phase", "data-phase-text": "" }),
        h("strong", { class: "shared-countdown", "data-countdown": "", "aria-live": "off" }),
      ),
      h("p", { class: "shared-players", "data-players": "" }),
      h("ul", { class: "shared-totals", "data-totals": "" }),
      this.latency.el,
    );
    this.el = tableView(tbl, {
      className: "table-view shared-view",
      name: [h("h1", { id: "table-title", text: tableName(tbl) }), limitsLine(tbl.limits, ` \u00b7 ${t("shared.live")}`)],
      rack,
      felt: feltView(tbl, on),
      buttons: BUTTONS,
      act: (action) => this.act(action),
      // Beside the felt, never on it: on it, the clock and the totals covered the hands.
      aside: [live, h("div", { class: "shoe-box", "data-shoe": "" })],
    });
    fill(this.root, this.el);
    this.position.mount(this.el.querySelector(".table-name"));
    const favourites = favouritesView(tbl, {
      current: () => this.bets.amounts(),
      place: (stakes) => this.change(() => this.bets.set(stakes)),
    });
    const stakes = () => (this.bets.isEmpty() ? (sum(this.placed) ? this.placed : this.lastBets || {}) : this.bets.amounts());
    // The bets placed on the coup are held (a multiplier table's fee with them): the balance
    // before them is the wallet and what it holds.
    const balance = () => (store.state.wallet[this.mode] ?? 0) + wageredOf(this.tbl, this.placed);
    const auto = autoplayView(this.auto, { stakes, run: () => this.autoBet(), balance });
    placeTools(this.el.querySelector(".felt"), favourites, auto);
    if (this.state) {
      this.showCoup();
      this.showRoads();
    }
    this.update();
  }

  showRoads() {
    if (this.el) showRoads(this.el.querySelector("[data-roads]"), this.tbl.id, this.mode);
  }

  /**
   * The window's warning is due once, WARN_S before its close, to a player who may bet: not
   * for a window that has no more than that left when it opens or the page comes to it (its
   * opening is said then, and the time is short already).
   */
  warnFrom() {
    const s = this.state;
    this.warned = !(s && s.phase === "betting" && secondsLeft(s.closes_at, this.offset) > WARN_S);
  }

  drawClock() {
    if (!this.el || !this.state) return;
    const s = this.state;
    const $ = (selector) => this.el.querySelector(selector);
    $("[data-phase-text]").textContent = t(`shared.phase.${s.phase}`);
    const at = s.phase === "betting" ? s.closes_at : s.phase === "dealt" ? s.next_at : null;
    const left = at ? secondsLeft(at, this.offset) : 0;
    $("[data-countdown]").textContent = at ? t("shared.seconds", { n: left }) : "";
    this.el.dataset.phase = s.phase;
    const open = s.phase === "betting" && store.state.user;
    this.latency.draw(open ? s.coup : null, open ? (s.closes_at - (Date.now() * 1000 + this.offset)) / 1000 : 0, SEND_MS);
    if (s.phase === "betting" && left <= WARN_S && left > 0 && !this.warned && store.state.user) {
      this.warned = true;
      announce(t("announce.time_left_shared", { seconds: left }));
    }
  }

  update() {
    if (!this.el) return;
    const $ = (selector) => this.el.querySelector(selector);
    const s = this.state || { phase: "idle", totals: {}, players: 0 };
    // The shoe's commitment, shown before any bet on it: kept as a receipt.
    keepShown(s.shoe?.commitment, this.mode, this.tbl.id);
    const amounts = this.bets.amounts();
    for (const name of this.bets.spots) {
      drawStake(this.el, name, this.bets.stacks[name], amounts[name] || 0, this.chip, feeOf(this.tbl, amounts[name] || 0));
      $(`[data-remove="${name}"]`).hidden = !(this.betting && this.bets.total(name));
    }
    $("[data-players]").textContent = t("shared.players", { n: s.players || 0 });
    fill(
      $("[data-totals]"),
      Object.entries(s.totals || {})
        .filter(([, spot]) => spot.amount)
        .map(([name, spot]) =>
          h(
            "li",
            { "data-total": name },
            h("span", { text: t(`spot.${name}`) }),
            " ",
            h("strong", { text: money(spot.amount) }),
            h("small", { text: ` (${spot.players})` }),
          ),
        ),
    );
    drawShoe($("[data-shoe]"), s.shoe);
    $('[data-meter="bet"]').textContent = money(wageredOf(this.tbl, this.placed));
    $('[data-meter="balance"]').textContent = money(store.balance());
    $('[data-meter="win"]').textContent = money(this.win);
    showLast(this.el, this.lastNet);
    markChip(this.el, this.chip);
    const open = this.betting && Boolean(store.state.user);
    const controls = [
      [$('[data-action="undo"]'), open && this.bets.history.length > 0],
      [$('[data-action="clear"]'), open && !this.bets.isEmpty()],
      [$('[data-action="double"]'), open && !this.bets.isEmpty()],
      [$('[data-action="rebet"]'), open && Boolean(this.lastBets) && this.bets.isEmpty()],
    ];
    for (const spot of this.el.querySelectorAll("[data-spot]")) controls.push([spot, open]);
    setControls(controls);
    this.el.dataset.coup = s.coup ?? "";
    showMessage(this.el, this.msg);
    this.drawClock();
  }

  /** The message line; a screen reader hears it too (sayMessage). */
  say(text, kind = "info") {
    this.msg = { text, kind };
    sayMessage(this.el, this.msg);
  }
}

export function render(root, tbl) {
  loadStyles("shared");
  return new SharedView(root, tbl).start();
}

/** The lobby's line for each shared table: its phase, countdown, players, last results. */
export function watchLobby(section, tables) {
  loadStyles("shared");
  const shared = tables.filter((tbl) => tbl.shared);
  let alive = true;
  const states = new Map();
  async function read() {
    for (const tbl of shared) {
      try {
        const state = await api.get(`${tablePath(tbl)}/state`, { mode: store.state.mode });
        states.set(tbl.id, { state, offset: state.server_time - Date.now() * 1000 });
      } catch {
        states.delete(tbl.id);
      }
    }
  }
  function draw() {
    for (const tbl of shared) {
      const line = section.querySelector(`[data-live="${tbl.id}"]`);
      const known = states.get(tbl.id);
      if (!line || !known) continue;
      const { state, offset } = known;
      const at = state.phase === "betting" ? state.closes_at : null;
      const parts = [t(`shared.phase.${state.phase}`)];
      if (at) parts.push(t("shared.seconds", { n: secondsLeft(at, offset) }));
      parts.push(t("shared.players", { n: state.players || 0 }));
      line.textContent = parts.join(" \u00b7 ");
      const last = section.querySelector(`[data-last="${tbl.id}"]`);
      if (last) {
        fill(
          last,
          (state.last_results || []).map((winner) =>
            h("span", { class: `last-result ${winner}`, title: t(`spot.${winner}`), text: t(`shared.letter.${winner}`) }),
          ),
        );
      }
    }
  }
  let polls = 0;
  const timer = setInterval(async () => {
    if (polls++ % 8 === 0) await read();
    if (alive) draw();
  }, 250);
  read().then(draw);
  return {
    draw,
    stop: () => {
      alive = false;
      clearInterval(timer);
    },
  };
}
