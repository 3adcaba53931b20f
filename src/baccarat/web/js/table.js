// The table: felt, spots, chip rack, buttons, meters, the deal and (on cut-shoe tables) the cut.

import * as api from "./api.js";
import { Bets, checkBets, chipsFor, spotsOf } from "./betting.js";
import { fill, h, reducedMotion } from "./dom.js";
import {
  controlsView,
  drawStake,
  feltView,
  headLinks,
  markChip,
  messageView,
  metersView,
  rackView,
  roadsSlot,
  showLast,
  showMessage,
} from "./felt.js";
import { checkText, errorText } from "./errors.js";
import { loginFirst } from "./gate.js";
import { money, t } from "./i18n.js";
import { isCutShoe, limitsText, tableName, tieLimitsText } from "./rulesinfo.js";
import { sounds } from "./sound.js";
import * as store from "./state.js";
import { openCut, shoeGauge } from "./cut.js";
import { option, optionsView } from "./options.js";
import { clearRound, revealRound, showBanner } from "./reveal.js";
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
// round, its bets, the balance) comes from the server.
const memory = new Map();

class TableView {
  constructor(root, tbl) {
    this.root = root;
    this.tbl = tbl;
    this.bets = new Bets(tbl.chips, spotsOf(tbl));
    this.chip = memory.get(tbl.id) ?? tbl.chips[0];
    this.lastBets = null;
    this.lastNet = null;
    this.phase = "betting";
    this.round = null;
    this.settled = null;
    this.win = 0;
    this.shoe = null;
    this.busy = false;
    this.mode = store.state.mode;
    this.msg = { text: "", kind: "" };
    this.held = null; // the balance shown while a round is revealed
    this.alive = true;
    this.onStore = () => this.storeChanged();
    this.onKey = (event) => this.shortcut(event);
  }

  async start() {
    this.draw();
    store.onChange(this.onStore);
    document.addEventListener("keydown", this.onKey);
    // The last round comes from the server while the table is already usable.
    this.restore();
    if (isCutShoe(this.tbl.rules)) await this.loadShoe();
  }

  destroy() {
    this.alive = false;
    store.offChange(this.onStore);
    document.removeEventListener("keydown", this.onKey);
  }

  /** The last round at this table, from the server: shown again after a reload. */
  async restore() {
    let items = [];
    try {
      items = (await api.get("/api/history", { mode: this.mode, table: this.tbl.id, limit: 1 })).items || [];
    } catch {
      return; // offline: the page shows it is, and the next round brings the truth
    }
    const round = items[0];
    if (!round || this.round || this.phase !== "betting" || !this.bets.isEmpty() || round.void_reason) return;
    const stakes = Object.fromEntries(Object.entries(round.bets).map(([name, bet]) => [name, bet.stake]));
    this.lastBets = stakes;
    this.finish(round, stakes);
    await revealRound(this.el, round, "instant");
    showBanner(this.el, round, this.lastNet);
    this.update();
  }

  relabel() {
    this.draw();
  }

  storeChanged() {
    if (store.state.mode !== this.mode) {
      this.mode = store.state.mode;
      this.newGame();
      this.lastBets = null;
      this.lastNet = null;
      this.restore();
      if (isCutShoe(this.tbl.rules)) this.loadShoe();
      this.showRoads();
    }
    this.update();
  }

  async loadShoe() {
    try {
      this.shoe = await api.get(`/api/tables/${encodeURIComponent(this.tbl.id)}/shoe`, {
        mode: this.mode,
      });
    } catch (error) {
      this.say(errorText(error), "error");
    }
    this.drawShoe();
    this.update();
  }

  get cutDue() {
    const shoe = this.shoe;
    return Boolean(isCutShoe(this.tbl.rules) && shoe && (shoe.cut_due ?? shoe.cut_required));
  }

  // ---- drawing ---------------------------------------------------------------------------

  draw() {
    const tbl = this.tbl;
    const on = { add: (name) => this.addChip(name), remove: (name) => this.removeChip(name) };
    const rack = rackView(tbl.chips, this.chip, (value) => this.selectChip(value));
    this.el = h(
      "section",
      { class: "table-view", "data-table": tbl.id, "aria-labelledby": "table-title", tabindex: "-1" },
      h(
        "div",
        { class: "table-head" },
        h(
          "a",
          { class: "btn small", href: "#/", "aria-label": t("table.back") },
          "\u2190",
          h("span", { class: "back-text", text: t("table.back") }),
        ),
        h(
          "div",
          { class: "table-name" },
          h("h1", { id: "table-title", text: tableName(tbl) }),
          h("p", { class: "muted" }, limitsText(tbl.limits), tieLimitsText(tbl.limits) ? ` \u00b7 ${tieLimitsText(tbl.limits)}` : ""),
        ),
        optionsView(),
        headLinks(tbl, h("a", { class: "btn small", href: "#/history", text: t("nav.history") })),
      ),
      feltView(tbl, on, { top: h("div", { class: "shoe-box", "data-shoe": "" }), middle: h("div", { class: "cut-area" }) }),
      roadsSlot(),
      h("div", { class: "rack-row" }, rack),
      controlsView(BUTTONS, (action) => this.act(action)),
      metersView(),
      messageView(),
    );
    fill(this.root, this.el);
    if (this.round && this.phase === "result") {
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
    if (this.cutDue && this.phase !== "result") {
      area.append(openCut(size, (position) => this.cut(position)));
    }
    this.el.classList.toggle("cut-due", this.cutDue && this.phase !== "result");
  }

  shoeSize() {
    const s = this.shoe || {};
    return s.cards ?? s.size ?? s.total ?? 52 * ((this.tbl.rules && this.tbl.rules.decks) || 8);
  }

  /** Refresh everything that follows from the state: stacks, meters, buttons. */
  update() {
    if (!this.el) return;
    const settled = this.phase !== "betting" && this.settled;
    const showing = settled || this.bets.amounts();
    for (const name of this.bets.spots) {
      const amount = showing[name] || 0;
      const chips = settled ? chipsFor(amount, this.tbl.chips) : this.bets.stacks[name];
      drawStake(this.el, name, chips, amount, this.chip);
      this.$(`[data-remove="${name}"]`).hidden = !(this.phase === "betting" && this.bets.total(name));
    }
    const onTable = this.phase === "betting" ? this.bets.total() : 0;
    const free = this.held ?? store.balance() - onTable;
    this.$('[data-meter="bet"]').textContent = money(settled ? sum(settled) : onTable);
    const balance = this.$('[data-meter="balance"]');
    // Bets above the balance: say so, never a negative balance.
    balance.textContent = free < 0 ? t("meter.over", { amount: money(-free) }) : money(free);
    balance.dataset.short = String(free < 0);
    this.$('[data-meter="win"]').textContent = money(this.win);
    showLast(this.el, this.lastNet);
    markChip(this.el, this.chip);
    const busy = this.busy || this.phase === "dealing";
    const empty = this.phase !== "betting" || this.bets.isEmpty();
    const enable = {
      undo: !busy && this.phase === "betting" && this.bets.history.length > 0,
      clear: !busy && !empty,
      double: !busy && (!empty || (this.phase === "result" && this.lastBets)),
      rebet: !busy && Boolean(this.lastBets),
      deal: !busy && !empty,
      "double-deal": !busy && (!empty || Boolean(this.lastBets && this.phase === "result")),
      "rebet-deal": !busy && Boolean(this.lastBets),
      new: !busy && (this.phase === "result" || !this.bets.isEmpty()),
    };
    for (const [action, on] of Object.entries(enable)) {
      this.$(`[data-action="${action}"]`).disabled = !on;
    }
    for (const spotButton of this.el.querySelectorAll("[data-spot]")) spotButton.disabled = busy;
    this.el.dataset.phase = this.phase;
    this.el.dataset.busy = String(busy);
    this.el.dataset.online = String(store.state.online);
    if (this.round) this.el.dataset.round = this.round.id;
    else delete this.el.dataset.round;
    // Offline: a clear state, which goes away by itself when the server answers again.
    if (!store.state.online && !this.msg.kind.startsWith("offline")) this.msg = { text: t("table.offline"), kind: "offline" };
    if (store.state.online && this.msg.kind === "offline" && this.phase !== "dealing") this.msg = { text: "", kind: "" };
    showMessage(this.el, this.msg);
  }

  say(text, kind = "info") {
    this.msg = { text, kind };
    if (this.el) showMessage(this.el, this.msg);
  }

  // ---- actions -----------------------------------------------------------------------

  selectChip(value) {
    this.chip = value;
    memory.set(this.tbl.id, value);
    sounds.chip();
    this.update();
  }

  shortcut(event) {
    if (event.target.closest && event.target.closest("input, select, textarea, .topbar")) return;
    if (event.key === "Escape" && this.phase === "result") this.act("new");
  }

  ensureBetting() {
    if (this.phase === "result") this.newGame(false);
  }

  liveCheck() {
    const problem = checkBets(this.bets.amounts(), this.tbl, store.balance());
    if (problem && /above/.test(problem.key)) this.say(checkText(problem), "warn");
    else if (this.msg.kind === "warn" || this.msg.kind === "error") this.say("");
  }

  addChip(name) {
    if (this.busy || this.phase === "dealing") return;
    this.ensureBetting();
    this.bets.add(name, this.chip);
    sounds.chip();
    this.liveCheck();
    this.update();
  }

  removeChip(name) {
    if (this.busy || this.phase !== "betting") return;
    if (this.bets.remove(name)) sounds.chip();
    this.liveCheck();
    this.update();
  }

  newGame(clearMessage = true) {
    this.phase = "betting";
    this.round = null;
    this.settled = null;
    this.win = 0;
    this.bets.reset();
    if (this.el) clearRound(this.el);
    if (clearMessage) this.say("");
    this.drawShoe();
  }

  async act(action) {
    if (this.busy) return;
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

  doubleBets() {
    if (this.phase === "result") {
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
    if (this.busy) return;
    this.busy = true;
    this.update();
    try {
      this.shoe = await api.post(`/api/tables/${encodeURIComponent(this.tbl.id)}/shoe`, {
        mode: this.mode,
        cut: position,
      });
      if (!this.shoe || (this.shoe.cut_due ?? this.shoe.cut_required) === undefined) {
        await this.loadShoe();
      }
      this.say(t("shoe.cut_done", { n: position }));
      this.showRoads();
      sounds.card();
    } catch (error) {
      this.say(errorText(error), "error");
    } finally {
      this.busy = false;
      this.drawShoe();
      this.update();
    }
  }

  async deal() {
    if (this.busy || this.phase !== "betting") {
      if (this.phase === "result") this.say(t("check.no_bet"), "warn");
      return;
    }
    const amounts = this.bets.amounts();
    const problem = checkBets(amounts, this.tbl, store.balance());
    if (problem) {
      this.say(checkText(problem), "error");
      sounds.error();
      this.update();
      return;
    }
    if (this.cutDue) {
      this.say(t("shoe.cut_first"), "error");
      sounds.error();
      return;
    }
    this.busy = true;
    this.phase = "dealing";
    this.settled = amounts;
    this.held = store.balance() - sum(amounts);
    this.say(t("table.dealing"));
    this.update();
    store.hold(true);
    let round;
    try {
      // The same Idempotency-Key until the page knows the round: a lost answer is asked
      // again, and the server answers with the round it already played.
      round = await api.postOnce(
        `/api/tables/${encodeURIComponent(this.tbl.id)}/rounds`,
        { mode: this.mode, bets: amounts },
        { retrying: () => this.alive && this.say(t("table.deal_retrying"), "offline") },
      );
    } catch (error) {
      store.hold(false);
      this.busy = false;
      this.held = null;
      this.settled = null;
      this.phase = "betting";
      this.say(errorText(error), "error");
      sounds.error();
      if (error.code === "cut_required") await this.loadShoe();
      this.update();
      return;
    }
    this.lastBets = amounts;
    this.round = round;
    this.say("");
    this.update();
    const how = option("squeeze") ? "squeeze" : reducedMotion() ? "instant" : option("fast") ? "fast" : "deal";
    if (this.alive) await revealRound(this.el, round, how);
    // The reveal is over: now the WIN, the balance and the header show the result.
    this.finish(round, amounts);
    store.hold(false);
    if (typeof round.balance_after === "number") store.setBalance(this.mode, round.balance_after);
    if (!this.alive) return;
    showBanner(this.el, round, this.lastNet);
    if (!this.el.contains(document.activeElement)) this.el.focus({ preventScroll: true });
    if (round.shoe) this.shoe = round.shoe;
    else if (isCutShoe(this.tbl.rules)) await this.loadShoe();
    this.drawShoe();
    this.update();
    this.showRoads();
  }

  /** A round is known and shown: its stakes, WIN and LAST, and REBET enabled. */
  finish(round, stakes) {
    this.round = round;
    this.settled = stakes;
    this.phase = "result";
    this.win = round.win ?? 0;
    this.lastNet = this.win - sum(stakes);
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
  const view = new TableView(root, tbl);
  await view.start();
  return view;
}
