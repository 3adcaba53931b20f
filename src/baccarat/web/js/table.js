// The table: felt, spots, chip rack, buttons, meters, the deal and (on cut-shoe tables) the cut.

import * as api from "./api.js";
import { Bets, checkBets, chipsFor, spotsOf } from "./betting.js";
import { announce, fill, h, reducedMotion } from "./dom.js";
import {
  drawStake,
  feltView,
  focusLost,
  limitsLine,
  markChip,
  rackView,
  sayMessage,
  setControls,
  showLast,
  showMessage,
  tableView,
} from "./felt.js";
import { checkText, errorText } from "./errors.js";
import { loginFirst } from "./gate.js";
import { refresh as keepReceipts } from "./receipts.js";
import { money, t } from "./i18n.js";
import { listenKeys } from "./keys.js";
import { isCutShoe, tableName } from "./rulesinfo.js";
import { sounds } from "./sound.js";
import * as store from "./state.js";
import { openCut, shoeGauge } from "./cut.js";
import { option } from "./options.js";
import { clearRound, resultText, revealRound, showBanner } from "./reveal.js";
import { feeOf, lightningText, wageredOf } from "./lightning.js";
import { Cycle } from "./cycle.js";
import { Position } from "./position.js";
import { favouritesView, placeTools } from "./favourites.js";
import { Autoplay, autoplayView, pause } from "./autoplay.js";
import { beforeFirstWager } from "./rgfirst.js";
import { showRoads } from "./roads.js";

const BUTTONS = [
  ["undo", "btn.undo"],
  ["clear", "btn.clear"],
  ["double", "btn.double"],
  ["rebet", "btn.rebet"],
  ["deal", "btn.deal"],
  ["double-deal", "btn.double_deal"],
  ["rebet-deal", "btn.rebet_deal"],
  ["new", "btn.new_game"],
];

// Per table: the chip chosen stays when the view is revisited. Everything else (the last
// round, its bets, the balance, what may be done) comes from the server.
const memory = new Map();

/** The table's name and its limits under it (the head). */
const nameView = (tbl) => [h("h1", { id: "table-title", text: tableName(tbl) }), limitsLine(tbl.limits)];

/** A round's stakes: {bet: cents}. */
const stakesOf = (round) => Object.fromEntries(Object.entries(round.bets || {}).map(([name, bet]) => [name, bet.stake]));

class TableView {
  constructor(root, tbl) {
    this.root = root;
    this.tbl = tbl;
    this.bets = new Bets(tbl.chips, spotsOf(tbl));
    this.chip = memory.get(tbl.id) ?? tbl.chips[0];
    // What the server says may be done at this table now (GET .../state, or a round's
    // answer): deal, rebet, double, new_game, cut. null until it has said.
    this.allowed = null;
    this.asked = 0; // the state read last asked for: an older answer is stale
    this.lastBets = null; // the stakes of the server's last round here (REBET, DOUBLE)
    this.lastId = null; // the server's last round here that this page knows
    this.lastNet = null;
    this.round = null; // the round on the felt, or null
    this.dealing = false; // from DEAL until its round is revealed
    this.settled = null;
    this.win = 0;
    this.shoe = null;
    this.busy = false; // a request in flight (or its round being revealed)
    this.mode = store.state.mode;
    this.online = store.state.online;
    this.msg = { text: "", kind: "" };
    this.held = null; // the balance shown while a round is revealed
    this.alive = true;
    this.closed = false; // the casino closed the table (GET .../state): no new rounds
    this.cycle = new Cycle(() => this.update()); // the profile's least time between rounds
    this.position = new Position(); // the session's net position and time, where shown
    this.auto = new Autoplay({ changed: () => this.update(), say: (text, kind) => this.say(text, kind) });
    this.onStore = () => this.storeChanged();
    this.onFocus = () => {
      if (document.visibilityState === "visible") this.refresh();
    };
  }

  async start() {
    this.draw();
    store.onChange(this.onStore);
    // The keys press the buttons; Escape (NEW GAME) clears a shown round, never the bets.
    this.stopKeys = listenKeys(() => this.el, { allow: (key) => key !== "Escape" || Boolean(this.round) });
    window.addEventListener("focus", this.onFocus);
    document.addEventListener("visibilitychange", this.onFocus);
    await this.refresh();
  }

  destroy() {
    this.alive = false;
    this.auto.stop("you");
    this.cycle.stop();
    this.position.stop();
    store.offChange(this.onStore);
    store.setOnFelt(null, 0);
    this.stopKeys();
    window.removeEventListener("focus", this.onFocus);
    document.removeEventListener("visibilitychange", this.onFocus);
  }

  /**
   * Ask the server where the player stands at this table (GET .../state): what may be done,
   * the balance, the last round (shown again after a reload or a round played elsewhere,
   * unless the player is betting) and the shoe.
   */
  async refresh() {
    const asked = ++this.asked;
    const mode = this.mode;
    let state;
    try {
      state = await api.get(`/api/tables/${encodeURIComponent(this.tbl.id)}/state`, { mode });
    } catch (error) {
      // Offline: the page says so, and asks again when it is back. Else say why, unless
      // something is said already (a refusal, which this read may repeat).
      if (this.alive && error.code !== "network_error" && !this.msg.text) this.say(errorText(error), "error");
      return;
    }
    if (!this.alive || asked !== this.asked || mode !== this.mode || this.busy) return;
    this.position.refresh(mode);
    this.takeTerms(state);
    this.allowed = new Set(state.allowed_actions || []);
    if (isCutShoe(this.tbl.rules)) this.shoe = state.shoe;
    if (typeof state.balance === "number") store.setBalance(mode, state.balance);
    const last = state.last_round;
    this.lastBets = last && !last.void_reason ? stakesOf(last) : null;
    const known = this.lastId;
    const fresh = last && last.id !== known;
    this.lastId = last ? last.id : null;
    if (fresh && !last.void_reason && !this.hasBets()) {
      this.finish(last, stakesOf(last));
      await revealRound(this.el, last, "instant");
      showBanner(this.el, last, this.lastNet);
    }
    // A round played elsewhere (another tab): the scoreboard has it too.
    if (fresh && known !== null) this.showRoads();
    this.drawShoe();
    this.update();
  }

  /**
   * The table as the server plays it now (GET .../state): open or closed by the casino,
   * its limits and bets (changed from the next round on), shown at once.
   */
  takeTerms(state) {
    if (state.limits && JSON.stringify(state.limits) !== JSON.stringify(this.tbl.limits)) {
      this.tbl = { ...this.tbl, limits: state.limits, bets: state.bets || this.tbl.bets };
      this.$(".table-name").replaceChildren(...nameView(this.tbl));
      this.position.mount(this.$(".table-name"));
    }
    // Said once, not again on every focus (a screen reader would hear it each time).
    const closed = state.open === false;
    const shown = this.msg.text === t("error.table_disabled");
    if (closed && !shown) this.say(t("error.table_disabled"), "warn");
    else if (!closed && this.closed && shown) this.say("");
    this.closed = closed;
    this.el.dataset.open = String(!closed);
  }

  relabel() {
    this.draw();
  }

  storeChanged() {
    if (store.state.mode !== this.mode) {
      this.mode = store.state.mode;
      this.newGame();
      this.allowed = null;
      this.lastBets = null;
      this.lastId = null;
      this.lastNet = null;
      this.shoe = null;
      this.refresh();
      this.showRoads();
    }
    if (store.state.online !== this.online) {
      this.online = store.state.online;
      if (this.online) this.refresh();
    }
    this.update();
  }

  /** The server's word on an action (false until it has spoken). */
  allows(action) {
    return Boolean(this.allowed && this.allowed.has(action));
  }

  /** Bets placed on the felt in this page (not a shown round's stakes). */
  hasBets() {
    return !this.round && !this.dealing && !this.bets.isEmpty();
  }

  /**
   * Which buttons may be used: what the server allows, combined with what only this page
   * knows (the bets on its felt, a request in flight, the round it shows).
   */
  enabled() {
    const idle = !this.busy;
    const bets = this.hasBets();
    const last = Boolean(this.lastBets);
    const can = (action) => idle && this.allows(action) && (action !== "deal" || this.cycle.ready());
    return {
      undo: idle && !this.round && !this.dealing && this.bets.history.length > 0,
      clear: idle && bets,
      double: bets ? idle : can("double") && last,
      rebet: can("rebet") && last,
      // Bets the table's limits refuse are not dealt: the message line says why (liveCheck).
      deal: can("deal") && bets && !this.problem(),
      "double-deal": can("deal") && (bets ? !this.problem(this.bets.doubled()) : can("double") && last),
      "rebet-deal": can("rebet") && can("deal") && last,
      new: idle && (bets || (can("new_game") && Boolean(this.round))),
      cut: can("cut"),
    };
  }

  get cutDue() {
    return this.allows("cut");
  }

  // ---- drawing ---------------------------------------------------------------------------

  draw() {
    const tbl = this.tbl;
    const on = { add: (name) => this.addChip(name), remove: (name) => this.removeChip(name) };
    const rack = rackView(tbl.chips, this.chip, (value) => this.selectChip(value));
    // The keyboard's order: the head, the chip rack, the spots, the buttons (DEAL after the
    // spots), the scoreboard, the displays; the grid places them where they show.
    this.el = tableView(tbl, {
      className: "table-view",
      name: nameView(tbl),
      rack,
      felt: feltView(tbl, on, { top: h("div", { class: "shoe-box", "data-shoe": "" }), middle: h("div", { class: "cut-area" }) }),
      buttons: BUTTONS,
      act: (action) => this.act(action),
    });
    fill(this.root, this.el);
    this.position.mount(this.$(".table-name"));
    const favourites = favouritesView(tbl, { current: () => this.bets.amounts(), place: (stakes) => this.placeFavourite(stakes) });
    const auto = autoplayView(this.auto, {
      stakes: () => (this.hasBets() ? this.bets.amounts() : this.lastBets || {}),
      run: () => this.autoplay(),
    });
    placeTools(this.$(".felt"), favourites, auto);
    if (this.round && !this.dealing) {
      revealRound(this.el, this.round, "instant");
      showBanner(this.el, this.round, this.lastNet);
    }
    this.drawShoe();
    this.update();
    this.showRoads();
  }

  showRoads() {
    showRoads(this.$("[data-roads]"), this.tbl.id, this.mode);
  }

  $(selector) {
    return this.el.querySelector(selector);
  }

  drawShoe() {
    if (!this.el) return;
    const box = this.$("[data-shoe]");
    const area = this.$(".cut-area");
    fill(box);
    fill(area);
    if (!isCutShoe(this.tbl.rules)) {
      box.hidden = true;
      return;
    }
    const size = this.shoeSize();
    box.hidden = false;
    box.append(...shoeGauge(this.shoe, size, this.cutDue));
    // The cut waits until the round on the felt is cleared.
    const cutting = this.cutDue && !this.round && !this.dealing;
    if (cutting) area.append(openCut(size, (position) => this.cut(position)));
    this.el.classList.toggle("cut-due", cutting);
  }

  shoeSize() {
    const s = this.shoe || {};
    return s.cards ?? s.size ?? s.total ?? 52 * ((this.tbl.rules && this.tbl.rules.decks) || 8);
  }

  /** Refresh everything that follows from the state: stacks, meters, buttons. */
  update() {
    if (!this.el) return;
    const settled = (this.round || this.dealing) && this.settled;
    const showing = settled || this.bets.amounts();
    const betting = !this.round && !this.dealing;
    for (const name of this.bets.spots) {
      const amount = showing[name] || 0;
      const chips = settled ? chipsFor(amount, this.tbl.chips) : this.bets.stacks[name];
      drawStake(this.el, name, chips, amount, this.chip, feeOf(this.tbl, amount));
      this.$(`[data-remove="${name}"]`).hidden = !(betting && this.bets.total(name));
    }
    // What the bets take from the balance: their stakes, and at a multiplier table the fees.
    const onTable = betting ? wageredOf(this.tbl, this.bets.amounts()) : 0;
    const free = this.held ?? store.balance() - onTable;
    this.$('[data-meter="bet"]').textContent = money(settled ? wageredOf(this.tbl, settled) : onTable);
    const balance = this.$('[data-meter="balance"]');
    // Bets above the balance: say so, never a negative balance.
    balance.textContent = free < 0 ? t("meter.over", { amount: money(-free) }) : money(free);
    balance.dataset.short = String(free < 0);
    this.$('[data-meter="win"]').textContent = money(this.win);
    showLast(this.el, this.lastNet);
    markChip(this.el, this.chip);
    this.$('[data-action="deal"]').dataset.wait = this.cycle.label();
    const controls = Object.entries(this.enabled())
      .map(([action, on]) => [this.$(`[data-action="${action}"]`), on])
      .filter(([button]) => button);
    for (const spotButton of this.el.querySelectorAll("[data-spot]")) controls.push([spotButton, !this.busy]);
    // While a round is dealt, a focused DEAL keeps the focus; after, it goes to what is next.
    setControls(controls, { hold: this.busy, next: () => this.nextControl() });
    this.el.dataset.phase = this.dealing ? "dealing" : this.round ? "result" : "betting";
    this.el.dataset.busy = String(this.busy);
    this.el.dataset.online = String(store.state.online);
    if (this.allowed) this.el.dataset.allowed = [...this.allowed].join(" ");
    else delete this.el.dataset.allowed;
    if (this.round) this.el.dataset.round = this.round.id;
    else delete this.el.dataset.round;
    // Offline: a clear state, which goes away by itself when the server answers again.
    if (!store.state.online && !this.msg.kind.startsWith("offline")) this.msg = { text: t("table.offline"), kind: "offline" };
    if (store.state.online && this.msg.kind === "offline" && !this.dealing) this.msg = { text: "", kind: "" };
    showMessage(this.el, this.msg);
    // The header shows the BALANCE display's amount: the chips on the felt are out of it.
    store.setOnFelt(this.mode, store.balance() - Math.max(free, 0));
  }

  /** The message line; a screen reader hears it too, but not the "Dealing…" ("progress"). */
  say(text, kind = "info") {
    this.msg = { text, kind };
    sayMessage(this.el, this.msg);
  }

  /**
   * The control of the next thing to do: NEW GAME over a shown round, DEAL over bets, else
   * the chip chosen (the rack comes before the spots).
   */
  nextControl() {
    const on = this.enabled();
    if (this.round && on.new) return this.$('[data-action="new"]');
    if (on.deal) return this.$('[data-action="deal"]');
    return this.$(`[data-chip="${this.chip}"]`);
  }

  /** The focus fell to the page (a squeezed card, the cut panel went): give it the next control. */
  restoreFocus() {
    if (!this.alive || !this.el || !focusLost(this.el)) return;
    const next = this.nextControl();
    if (next) next.focus({ preventScroll: true });
  }

  // ---- actions -----------------------------------------------------------------------

  selectChip(value) {
    this.chip = value;
    memory.set(this.tbl.id, value);
    sounds.chip();
    this.update();
  }

  /** Clear a shown round from the felt before new chips go on it. */
  ensureBetting() {
    if (this.round) this.newGame(false);
  }

  /**
   * Why these bets may not be dealt (checkBets: the limits the API gives, the balance), or
   * null; the server checks again and has the last word.
   */
  problem(amounts = this.bets.amounts()) {
    return checkBets(amounts, this.tbl, store.balance());
  }

  /** Say what is wrong with the bets on the felt as they are placed, before DEAL. */
  liveCheck() {
    const problem = this.hasBets() ? this.problem() : null;
    if (problem) this.say(checkText(problem), "warn");
    else if (this.closed) this.say(t("error.table_disabled"), "warn");
    else if (this.msg.kind === "warn" || this.msg.kind === "error") this.say("");
  }

  addChip(name) {
    if (this.busy) return;
    this.ensureBetting();
    this.bets.add(name, this.chip);
    sounds.chip();
    this.liveCheck();
    this.update();
  }

  removeChip(name) {
    if (this.busy || this.round) return;
    if (this.bets.remove(name)) sounds.chip();
    this.liveCheck();
    this.update();
  }

  newGame(clearMessage = true) {
    this.round = null;
    this.settled = null;
    this.win = 0;
    this.bets.reset();
    if (this.el) clearRound(this.el);
    if (clearMessage) this.say("");
    this.drawShoe();
  }

  async act(action) {
    if (!this.enabled()[action]) return;
    switch (action) {
      case "undo":
        this.bets.undo();
        break;
      case "clear":
        this.bets.clear();
        break;
      case "double":
        this.doubleBets();
        break;
      case "rebet":
        this.rebet();
        break;
      case "new":
        this.newGame();
        break;
      case "deal":
        await this.deal();
        return;
      case "double-deal":
        if (this.doubleBets()) await this.deal();
        return;
      case "rebet-deal":
        if (this.rebet()) await this.deal();
        return;
      default:
        return;
    }
    this.liveCheck();
    this.update();
  }

  /** DOUBLE: the felt's bets twice over; on an empty felt, the last round's bets twice. */
  doubleBets() {
    if (!this.hasBets()) {
      if (!this.lastBets) return false;
      this.newGame(false);
      this.bets.set(this.lastBets);
    }
    const done = this.bets.double();
    if (!done) this.say(t("check.no_bet"), "warn");
    this.liveCheck();
    this.update();
    return done;
  }

  /** A favourite layout on the felt (js/favourites.js), checked as any bets. */
  placeFavourite(stakes) {
    if (this.busy) return;
    this.ensureBetting();
    this.bets.set(stakes);
    sounds.chip();
    this.liveCheck();
    this.update();
  }

  /** REBET: the server's last round's bets on the felt again. */
  rebet() {
    if (!this.lastBets) {
      this.say(t("check.no_last_bet"), "warn");
      return false;
    }
    this.ensureBetting();
    this.bets.set(this.lastBets);
    sounds.chip();
    this.liveCheck();
    this.update();
    return true;
  }

  async cut(position) {
    if (!this.enabled().cut) return;
    this.busy = true;
    this.update();
    try {
      this.shoe = await api.post(`/api/tables/${encodeURIComponent(this.tbl.id)}/shoe`, {
        mode: this.mode,
        cut: position,
      });
      // The cut's answer is the shoe: what may be done now, the state says.
      this.allowed = null;
      this.say(t("shoe.cut_done", { n: position }));
      this.showRoads();
      sounds.card();
    } catch (error) {
      this.say(errorText(error), "error");
    } finally {
      this.busy = false;
      this.drawShoe();
      this.update();
      this.restoreFocus();
    }
    if (this.alive) await this.refresh();
  }

  /** The rounds of an autoplay (js/autoplay.js), each dealt and shown as any round. */
  async autoplay() {
    for (let n = this.auto.next(); n; n = this.auto.next()) {
      this.newGame(false);
      this.bets.set(this.auto.stakes);
      const round = await this.deal(n);
      if (!this.auto.active) return this.auto.sayAgain(); // stopped while it was dealt
      if (!round) return this.auto.refused(this.msg.text);
      const { balance_before: before, balance_after: after, stake, win } = round;
      if (!(await this.auto.settled({ before, after, stake, win }))) return;
      await pause(this.auto);
      while (this.auto.active && !this.cycle.ready()) await pause(this.auto, 100);
    }
  }

  /** DEAL (`autoplay`: the round's number in an autoplay): the round, or null if refused. */
  async deal(autoplay = 0) {
    const amounts = this.bets.amounts();
    // A pre-check with the table's rules, for a quick answer; the server checks again.
    const problem = checkBets(amounts, this.tbl, store.balance());
    if (problem) {
      this.say(checkText(problem), "error");
      sounds.error();
      this.update();
      return null;
    }
    await beforeFirstWager(this.mode); // where the profile shows the tools first (Malta)
    if (!this.alive) return null;
    this.busy = true;
    this.dealing = true;
    this.settled = amounts;
    this.held = store.balance() - wageredOf(this.tbl, amounts);
    this.say(t("table.dealing"), "progress");
    this.update();
    store.hold(true);
    let round;
    try {
      // The same Idempotency-Key until the page knows the round: a lost answer is asked
      // again, and the server answers with the round it already played.
      round = await api.postOnce(
        `/api/tables/${encodeURIComponent(this.tbl.id)}/rounds`,
        { mode: this.mode, bets: amounts, ...(autoplay ? { autoplay } : {}) },
        { retrying: () => this.alive && this.say(t("table.deal_retrying"), "offline") },
      );
    } catch (error) {
      // Refused: nothing was dealt; the bets stay on the felt and the server says why.
      store.hold(false);
      this.busy = false;
      this.dealing = false;
      this.held = null;
      this.settled = null;
      this.say(errorText(error), "error");
      if (error.code === "cycle_too_soon") this.cycle.start(error.details.wait_ms);
      sounds.error();
      this.update();
      // Where the player stands now (the balance, a cut due, what may be done).
      if (this.alive) await this.refresh();
      return null;
    }
    this.cycle.start(); // the round started: the next one waits the profile's time
    // What may be done after this round; a state read asked before it is stale now.
    this.asked++;
    this.allowed = Array.isArray(round.allowed_actions) ? new Set(round.allowed_actions) : null;
    this.lastBets = round.void_reason ? null : stakesOf(round);
    this.lastId = round.id;
    if (round.shoe) this.shoe = round.shoe;
    this.round = round;
    this.say("");
    this.update();
    const how = option("squeeze") ? "squeeze" : reducedMotion() ? "instant" : option("fast") ? "fast" : "deal";
    // A multiplier table's cards, said once as they show (before the first card).
    if (round.lightning && round.lightning.length) announce(lightningText(round.lightning));
    if (this.alive) await revealRound(this.el, round, how);
    // The reveal is over: now the WIN, the balance and the header show the result.
    this.finish(round, stakesOf(round));
    store.hold(false);
    if (typeof round.balance_after === "number") store.setBalance(this.mode, round.balance_after);
    if (!this.alive) return round;
    showBanner(this.el, round, this.lastNet);
    this.position.played(round, this.mode); // the round counts in the session's net position
    // On an operator's wallet the win may still be on its way (docs/operator-api.md).
    if (round.payout === "pending") this.say(t("round.payout_pending"), "progress");
    // The round's one announcement: what the banner shows, in a sentence.
    announce(resultText(round, this.lastNet));
    this.drawShoe();
    this.update();
    this.restoreFocus();
    this.showRoads();
    // An answer without the actions (or the shoe a cut-shoe table needs): ask the state.
    if (!this.allowed || (isCutShoe(this.tbl.rules) && !round.shoe)) await this.refresh();
    return round;
  }

  /** A round is known and shown: its stakes, WIN and LAST. */
  finish(round, stakes) {
    this.round = round;
    this.settled = stakes;
    this.dealing = false;
    this.win = round.win ?? 0;
    this.lastNet = this.win - sum(stakes) - (round.fee ?? 0);
    this.held = null;
    this.busy = false;
  }
}
function sum(amounts) {
  return Object.values(amounts).reduce((a, b) => a + b, 0);
}

export async function render(root, tableId) {
  if (loginFirst(root)) return null;
  let tbl = null;
  try {
    tbl = await store.table(tableId);
  } catch (error) {
    root.append(h("p", { class: "message", role: "alert", text: errorText(error) }));
    return null;
  }
  if (!tbl) {
    root.append(h("p", { class: "message", role: "alert", text: t("error.unknown_table") }));
    return null;
  }
  // A shared table deals on its clock to everyone at it (js/shared.js).
  if (tbl.shared) return (await import("./shared.js")).render(root, tbl);
  // The commitments in force, kept as receipts before the first deal here.
  keepReceipts(tableId);
  const view = new TableView(root, tbl);
  await view.start();
  return view;
}
