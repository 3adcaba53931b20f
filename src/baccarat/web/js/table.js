// The table: felt, spots, chip rack, buttons, meters, the deal and (on cut-shoe tables) the cut.

import * as api from "./api.js";
import { Bets, checkBets, SPOTS } from "./betting.js";
import { fill, h, reducedMotion } from "./dom.js";
import { handView, headLinks, metersView } from "./felt.js";
import { checkText, errorText } from "./errors.js";
import { chipLabel, money, signedMoney, t } from "./i18n.js";
import { isCutShoe, limitsText, pays, tieLimitsText, toOne } from "./rulesinfo.js";
import { sounds } from "./sound.js";
import * as store from "./state.js";
import { openCut } from "./cut.js";
import { revealRound } from "./reveal.js";
import { showRoads } from "./roads.js";

const CHIP_COLOURS = {
  100: "white",
  200: "yellow",
  500: "red",
  1000: "blue",
  2500: "green",
  5000: "orange",
  10000: "black",
  50000: "purple",
  100000: "gold",
};
export const chipColour = (cents) => CHIP_COLOURS[cents] || "blue";

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

// Per table: what stays when the view is redrawn (language change) or revisited.
const memory = new Map();

class TableView {
  constructor(root, tbl) {
    this.root = root;
    this.tbl = tbl;
    const saved = memory.get(tbl.id);
    this.bets = new Bets(tbl.chips);
    this.chip = saved ? saved.chip : tbl.chips[0];
    this.lastBets = saved ? saved.lastBets : null;
    this.lastNet = saved ? saved.lastNet : null;
    this.phase = "betting";
    this.round = null;
    this.settled = null;
    this.win = 0;
    this.shoe = null;
    this.busy = false;
    this.mode = store.state.mode;
    this.msg = { text: "", kind: "" };
    this.onStore = () => this.storeChanged();
    this.onKey = (event) => this.shortcut(event);
  }

  remember() {
    memory.set(this.tbl.id, { chip: this.chip, lastBets: this.lastBets, lastNet: this.lastNet });
  }

  async start() {
    this.draw();
    store.onChange(this.onStore);
    if (isCutShoe(this.tbl.rules)) await this.loadShoe();
  }

  destroy() {
    store.offChange(this.onStore);
    this.remember();
  }

  relabel() {
    this.draw();
  }

  storeChanged() {
    if (store.state.mode !== this.mode) {
      this.mode = store.state.mode;
      this.newGame();
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
    const p = pays(tbl.rules || {});
    const spot = (name) => {
      const stack = h("span", { class: "stack", "aria-hidden": "true" });
      const total = h("span", { class: "stack-total" });
      const marker = h("span", { class: "bet-marker", "aria-live": "polite" });
      const button = h(
        "button",
        {
          class: `spot spot-${name}`,
          "data-spot": name,
          oncontextmenu: (event) => {
            event.preventDefault();
            this.removeChip(name);
          },
          onclick: () => this.addChip(name),
          onkeydown: (event) => {
            if (event.key === "Delete" || event.key === "Backspace") {
              event.preventDefault();
              this.removeChip(name);
            }
          },
        },
        h("span", { class: "spot-name", text: t(`spot.${name}`) }),
        h("span", { class: "spot-pays", text: t("table.pays", { pays: toOne(p[name]) }) }),
        stack,
        total,
      );
      const remove = h("button", {
        class: "remove-chip",
        "data-remove": name,
        "aria-label": t("table.remove_chip", { spot: t(`spot.${name}`) }),
        title: t("table.remove_chip", { spot: t(`spot.${name}`) }),
        text: "\u2212",
        onclick: () => this.removeChip(name),
      });
      return h("div", { class: `spot-wrap wrap-${name}` }, button, remove, marker);
    };
    const rack = h(
      "div",
      { class: "rack", role: "radiogroup", "aria-label": t("table.chips") },
      tbl.chips.map((value) =>
        h("button", {
          class: `chip chip-${chipColour(value)}`,
          "data-chip": value,
          role: "radio",
          "aria-checked": String(value === this.chip),
          "aria-label": t("table.chip", { amount: money(value) }),
          text: chipLabel(value),
          onclick: () => this.selectChip(value),
          onkeydown: (event) => this.rackKey(event, value),
        }),
      ),
    );
    this.el = h(
      "section",
      { class: "table-view", "data-table": tbl.id, "aria-labelledby": "table-title" },
      h(
        "div",
        { class: "table-head" },
        h("a", { class: "btn small", href: "#/", text: `\u2190 ${t("table.back")}` }),
        h(
          "div",
          { class: "table-name" },
          h("h1", { id: "table-title", text: tbl.name }),
          h(
            "p",
            { class: "muted" },
            limitsText(tbl.limits),
            tieLimitsText(tbl.limits) ? ` \u00b7 ${tieLimitsText(tbl.limits)}` : "",
          ),
        ),
        headLinks(tbl, h("a", { class: "btn small", href: "#/history", text: t("nav.history") })),
      ),
      h(
        "div",
        { class: "felt" },
        h("div", { class: "shoe-box", "data-shoe": "" }),
        h("div", { class: "hands" }, handView("player"), handView("banker")),
        h("div", { class: "cut-area" }),
        h(
          "div",
          { class: "spots" },
          spot("player"),
          h("div", { class: "spot-col" }, spot("tie"), spot("banker")),
        ),
        h("p", { class: "felt-rule", "aria-hidden": "true", text: t("table.felt_rule", { tie: toOne(p.tie), banker: toOne(p.banker) }) }),
      ),
      h("div", { class: "rack-row" }, rack),
      h(
        "div",
        { class: "controls" },
        BUTTONS.map(([action, key]) =>
          h("button", {
            class: `btn ctl ctl-${action}${action.includes("deal") ? " primary" : ""}`,
            "data-action": action,
            text: t(key),
            onclick: () => this.act(action),
          }),
        ),
      ),
      metersView(),
      h("p", { id: "table-message", class: "message", role: "status", "aria-live": "polite" }),
      h("section", { class: "roads", "data-roads": "" }),
    );
    fill(this.root, this.el);
    this.el.addEventListener("keydown", this.onKey);
    if (this.round && this.phase === "result") this.showRound(this.round, false);
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
    const left = this.shoe ? this.shoe.cards_left ?? this.shoe.remaining ?? null : null;
    box.hidden = false;
    box.append(
      h("div", { class: "shoe-icon", "aria-hidden": "true" }),
      h("p", {
        class: "shoe-left",
        "data-remaining": left ?? "",
        text:
          left == null
            ? t("shoe.unknown")
            : this.cutDue
              ? t("shoe.cut_title")
              : t("shoe.left", { n: left, total: size }),
      }),
      h(
        "div",
        { class: "shoe-gauge", "aria-hidden": "true" },
        h("span", { style: `width:${left == null ? 0 : Math.round((100 * left) / size)}%` }),
      ),
    );
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
    const showing = this.phase === "result" && this.settled ? this.settled : this.bets.amounts();
    for (const name of SPOTS) {
      const chips =
        this.phase === "result" && this.settled
          ? this.settledChips[name] || []
          : this.bets.stacks[name];
      const amount = showing[name] || 0;
      const stack = this.$(`[data-spot="${name}"] .stack`);
      fill(stack, 
        ...chips.slice(-6).map((value, i) =>
          h("span", { class: `mini-chip chip-${chipColour(value)}`, style: `--i:${i}` }),
        ),
      );
      this.$(`[data-spot="${name}"] .stack-total`).textContent = amount ? money(amount) : "";
      const spotButton = this.$(`[data-spot="${name}"]`);
      spotButton.classList.toggle("has-bet", amount > 0);
      spotButton.setAttribute(
        "aria-label",
        amount
          ? t("table.spot_with_bet", { spot: t(`spot.${name}`), amount: money(amount) })
          : t("table.spot_empty", { spot: t(`spot.${name}`), chip: money(this.chip) }),
      );
      this.$(`[data-remove="${name}"]`).hidden = !(this.phase === "betting" && this.bets.total(name));
    }
    const onTable = this.phase === "result" ? 0 : this.bets.total();
    const bal = store.balance();
    this.$('[data-meter="bet"]').textContent = money(this.phase === "result" && this.settled ? sum(this.settled) : onTable);
    this.$('[data-meter="balance"]').textContent = money(bal - onTable);
    this.$('[data-meter="win"]').textContent = money(this.win);
    const last = this.$('[data-meter="last"]');
    last.textContent = this.lastNet == null ? "\u2013" : signedMoney(this.lastNet);
    last.dataset.sign = this.lastNet > 0 ? "plus" : this.lastNet < 0 ? "minus" : "zero";
    for (const chip of this.el.querySelectorAll("[data-chip]")) {
      const selected = Number(chip.dataset.chip) === this.chip;
      chip.setAttribute("aria-checked", String(selected));
      chip.tabIndex = selected ? 0 : -1;
    }
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
    const message = this.$("#table-message");
    message.textContent = this.msg.text;
    message.dataset.kind = this.msg.kind;
  }

  say(text, kind = "info") {
    this.msg = { text, kind };
    if (this.el) {
      const message = this.$("#table-message");
      message.textContent = text;
      message.dataset.kind = kind;
    }
  }

  // ---- actions -----------------------------------------------------------------------

  selectChip(value) {
    this.chip = value;
    this.remember();
    sounds.chip();
    this.update();
  }

  rackKey(event, value) {
    const chips = this.tbl.chips;
    const i = chips.indexOf(value);
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = chips[(i + 1) % chips.length];
    if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = chips[(i - 1 + chips.length) % chips.length];
    if (next == null) return;
    event.preventDefault();
    this.selectChip(next);
    this.$(`[data-chip="${next}"]`).focus();
  }

  shortcut(event) {
    if (event.target.closest("input, select, textarea")) return;
    if (event.key === "Escape" && this.phase === "result") this.act("new");
  }

  ensureBetting() {
    if (this.phase === "result") this.newGame(false);
  }

  liveCheck() {
    const problem = checkBets(this.bets.amounts(), this.tbl.limits || {}, store.balance());
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
    if (this.el) {
      for (const name of ["player", "banker"]) {
        fill(this.$(`[data-cards="${name}"]`));
        this.$(`[data-score="${name}"]`).textContent = "";
        const marker = this.$(`[data-marker="${name}"]`);
        marker.textContent = "";
        delete marker.dataset.result;
      }
      for (const marker of this.el.querySelectorAll(".bet-marker")) {
        marker.textContent = "";
        delete marker.dataset.result;
      }
      delete this.$(".felt").dataset.winner;
    }
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
    const problem = checkBets(amounts, this.tbl.limits || {}, store.balance());
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
    this.say(t("table.dealing"));
    this.update();
    let round;
    try {
      round = await api.postOnce(`/api/tables/${encodeURIComponent(this.tbl.id)}/rounds`, {
        mode: this.mode,
        bets: amounts,
      });
    } catch (error) {
      this.busy = false;
      this.phase = "betting";
      this.say(errorText(error), "error");
      sounds.error();
      if (error.code === "cut_required") await this.loadShoe();
      this.update();
      return;
    }
    this.lastBets = amounts;
    this.settled = amounts;
    this.settledChips = { ...this.bets.stacks };
    await this.showRound(round, !reducedMotion());
    this.round = round;
    this.phase = "result";
    this.win = round.win ?? 0;
    this.lastNet = this.win - sum(amounts);
    this.remember();
    this.busy = false;
    this.say(resultText(round));
    if (typeof round.balance_after === "number") store.setBalance(this.mode, round.balance_after);
    else await store.refreshWallet();
    if (round.shoe) this.shoe = round.shoe;
    else if (isCutShoe(this.tbl.rules)) await this.loadShoe();
    this.drawShoe();
    this.update();
    this.showRoads();
  }

  showRound(round, animate) {
    return revealRound(this.el, round, animate);
  }
}

function sum(amounts) {
  return Object.values(amounts).reduce((a, b) => a + b, 0);
}

function resultText(round) {
  const winner = t(`spot.${round.winner}`);
  const head = round.winner === "tie" ? t("result.tie") : t("result.wins", { winner });
  return `${head} ${round.win > 0 ? t("result.you_win", { amount: money(round.win) }) : ""}`.trim();
}

export async function render(root, tableId) {
  if (!store.state.user) {
    root.append(
      h(
        "section",
        { class: "panel narrow" },
        h("h1", { text: t("table.login_first") }),
        h("a", { class: "btn primary", href: "#/", text: t("nav.lobby") }),
      ),
    );
    return null;
  }
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
