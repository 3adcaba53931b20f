// Pieces of the felt that the casino tables (house, shared) and the player-banked seat draw alike.

import { announce, fill, h } from "./dom.js";
import { chipLabel, currencySymbol, money, signedMoney, t } from "./i18n.js";
import { keyOf } from "./keys.js";
import { isMultiplier, stripView } from "./lightning.js";
import { optionsView } from "./options.js";
import { headlinePay, limitsText, pays, tieLimitsText, toOne } from "./rulesinfo.js";

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

/** The chip rack: one radio button per chip; arrows move the choice. */
export function rackView(chips, selected, choose) {
  const key = (event, value) => {
    const i = chips.indexOf(value);
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = chips[(i + 1) % chips.length];
    if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = chips[(i - 1 + chips.length) % chips.length];
    if (next == null) return;
    event.preventDefault();
    choose(next);
    event.target.parentElement.querySelector(`[data-chip="${next}"]`).focus();
  };
  return h(
    "div",
    { class: "rack", role: "radiogroup", "aria-label": t("table.chips") },
    chips.map((value, i) =>
      h("button", {
        class: `chip chip-${chipColour(value)}`,
        "data-chip": value,
        // Its label's length: a long one ("10,000") is set smaller, inside the chip.
        style: `--chars:${chipLabel(value).length}`,
        role: "radio",
        "aria-checked": String(value === selected),
        "aria-label": t("table.chip", { amount: money(value) }),
        "aria-keyshortcuts": i < 9 ? keyOf(`chip${i + 1}`) : null,
        text: chipLabel(value),
        onclick: () => choose(value),
        onkeydown: (event) => key(event, value),
      }),
    ),
  );
}

/** Show the selected chip in the rack. */
export function markChip(el, selected) {
  for (const chip of el.querySelectorAll("[data-chip]")) {
    const on = Number(chip.dataset.chip) === selected;
    chip.setAttribute("aria-checked", String(on));
    chip.tabIndex = on ? 0 : -1;
  }
}

/**
 * A spot's chips (the top six) and its stake (at a multiplier table with the fee it takes,
 * `fee`). The spot's name is what it shows (its name, its pays and its stake, so that a
 * voice user can say what they see), with "(your bet)" for a screen reader after the stake;
 * what a press does is its description.
 */
export function drawStake(el, name, chips, amount, chip, fee = 0) {
  const spot = el.querySelector(`[data-spot="${name}"]`);
  if (!spot) return;
  fill(
    spot.querySelector(".stack"),
    ...chips.slice(-6).map((value, i) => h("span", { class: `mini-chip chip-${chipColour(value)}`, style: `--i:${i}` })),
  );
  spot.querySelector(".stack-total").textContent = amount ? money(amount) : "";
  // A multiplier table's fee, taken with the stake: beside it.
  spot.querySelector(".stack-fee").textContent = amount && fee ? t("lightning.fee", { fee: money(fee) }) : "";
  spot.querySelector(".spot-note").textContent = amount ? t("table.spot_bet_note") : "";
  spot.classList.toggle("has-bet", amount > 0);
  el.querySelector(`#spot-help-${name}`).textContent = t("table.spot_help", { chip: money(chip) });
}

// A hand: its WIN/LOSE marker, its name, its x:y score and its cards.
const handView = (name) =>
  h(
    "section",
    { class: `hand hand-${name}`, "data-hand": name, "aria-label": t(`hand.${name}`) },
    h(
      "div",
      { class: "hand-head" },
      h("h2", { class: "hand-title", text: t(`spot.${name}`) }),
      h("div", { class: "hand-marker", "data-marker": name }),
    ),
    h(
      "div",
      { class: "hand-row" },
      h("span", { class: "sr-only", text: t("table.score") }),
      h("span", { class: "score", "data-score": name }),
      h("div", { class: "cards", "data-cards": name }),
    ),
  );

/**
 * One bet spot: its button (name, pays, chip stack, stake), the remove control and the
 * WIN/LOSE marker. `on` holds add(name) and remove(name); `small` draws a side spot.
 */
export function spotView(name, pay, on, { small = false, removable = true } = {}) {
  const button = h(
    "button",
    {
      class: `spot spot-${name}`,
      "data-spot": name,
      "aria-describedby": `spot-help-${name}`,
      "aria-keyshortcuts": keyOf(name),
      oncontextmenu: (event) => {
        event.preventDefault();
        on.remove(name);
      },
      onclick: () => on.add(name),
      onkeydown: (event) => {
        if (event.key === "Delete" || event.key === "Backspace") {
          event.preventDefault();
          on.remove(name);
        }
      },
    },
    h("span", { class: "spot-name", text: t(`spot.${name}`) }),
    h("span", { class: "spot-pays", text: t("table.pays", { pays: toOne(pay) }) }),
    h("span", { class: "stack", "aria-hidden": "true" }),
    h("span", { class: "stack-total" }),
    h("span", { class: "stack-fee" }),
    h("span", { class: "spot-note sr-only" }),
  );
  const remove = removable
    ? h("button", {
        class: "remove-chip",
        "data-remove": name,
        "aria-label": t("table.remove_chip", { spot: t(`spot.${name}`) }),
        title: t("table.remove_chip", { spot: t(`spot.${name}`) }),
        text: "\u2212",
        hidden: true,
        onclick: () => on.remove(name),
      })
    : null;
  const marker = h("span", { class: "bet-marker" });
  const help = h("span", { id: `spot-help-${name}`, hidden: true });
  return h("div", { class: `spot-wrap wrap-${name}${small ? " small" : ""}` }, button, remove, marker, help);
}

// Where a side spot goes, the way commercial tables lay them out: beside the hand it is
// about (pairs, Dragon Bonus, Panda 8 by PLAYER; Dragon 7 and Super 6 by BANKER), the
// others in the row below.
const SIDE_PLACE = {
  player_pair: "player",
  player_dragon: "player",
  panda8: "player",
  banker_pair: "banker",
  banker_dragon: "banker",
  dragon7: "banker",
  super6: "banker",
};

/**
 * The spots of a table, from the API's list of the bets it takes (`tbl.bets`), laid out as
 * one row: PLAYER, the TIE circle, BANKER (seed 001 draws TIE above BANKER; on one screen
 * it sits between them). Side spots go beside PLAYER and BANKER (`.side-player`,
 * `.side-banker`) or in the row below (`.spots-row`); those groups stay empty and hidden
 * at a table without side bets. `pays` holds the main bets' headline pays "to one".
 */
function spotsView(tbl, pays, on, options = {}) {
  const groups = {
    player: h("div", { class: "side-spots side-player", "data-side": "player" }),
    banker: h("div", { class: "side-spots side-banker", "data-side": "banker" }),
    row: h("div", { class: "spots-row", "data-side": "row" }),
  };
  for (const [name, bet] of Object.entries(tbl.bets || {})) {
    if (name in pays) continue;
    groups[SIDE_PLACE[name] || "row"].append(spotView(name, headlinePay(bet), on, { ...options, small: true }));
  }
  const spot = (name) => spotView(name, pays[name], on, options);
  return h(
    "div",
    { class: "spots" },
    groups.player,
    spot("player"),
    h("div", { class: "spot-col" }, spot("tie"), spot("banker")),
    groups.banker,
    groups.row,
  );
}

/**
 * The result banner over the felt: the winner, the net, what was paid. It is not a live
 * region: the round's end is said once, in a sentence (reveal.js resultText, announce()).
 */
const bannerView = () =>
  h(
    "div",
    { class: "result-banner", "data-banner": "", hidden: true },
    h("p", { class: "banner-callout", "data-callout": "" }),
    h("p", { class: "banner-head", "data-banner-head": "" }),
    h("p", { class: "banner-multiplier", "data-banner-multiplier": "" }),
    h("p", { class: "banner-net", "data-banner-net": "" }),
    h("p", { class: "banner-detail", "data-banner-detail": "" }),
  );

/**
 * The felt: the two hands, the spots, the result banner and the rule line, with the pays of
 * the table's pay tables (the API's `bets`). `top` goes first (the shoe, the dealer's-view
 * note), `middle` between the hands and the spots (the cut); the rest of `options` is
 * spotView's. At a multiplier table the strip of the coup's multiplier cards is over the
 * hands (drawn at the deal, or at a shared table when betting closes).
 */
export function feltView(tbl, on, { top = null, middle = null, ...options } = {}) {
  const p = pays(tbl);
  return h(
    "div",
    { class: "felt" },
    top,
    isMultiplier(tbl) ? stripView(tbl.shared ? "close" : "deal") : null,
    h("div", { class: "hands" }, handView("player"), handView("banker")),
    middle,
    spotsView(tbl, p, on, options),
    bannerView(),
    h("p", { class: "felt-rule", "aria-hidden": "true", text: t("table.felt_rule", { tie: toOne(p.tie), banker: toOne(p.banker) }) }),
  );
}

/** The row of buttons: [action, label key] pairs; `act(action)` runs one; DEAL and its kin stand out. */
export const controlsView = (buttons, act, className = "controls") =>
  h(
    "div",
    { class: className },
    buttons.map(([action, key]) =>
      h("button", {
        class: `btn ctl ctl-${action}${action.includes("deal") ? " primary" : ""}`,
        "data-action": action,
        "aria-keyshortcuts": keyOf(action),
        text: t(key),
        onclick: () => act(action),
      }),
    ),
  );

/** The scoreboard's place on the table (roads.js draws the roads in it). */
export const roadsSlot = () => h("section", { id: "roads", class: "roads", "data-roads": "", "aria-label": t("table.roads") });

// The BET, BALANCE, WIN and LAST ROUND displays.
const meterView = (name) =>
  h(
    "div",
    { class: `meter meter-${name}` },
    h("span", { class: "meter-label", text: t(`meter.${name}`) }),
    h("span", { class: "meter-value", "data-meter": name }),
  );

export const metersView = () => h("div", { class: "meters" }, ["bet", "balance", "win", "last"].map(meterView));

/** The LAST ROUND display: the net of the last round, or a dash before the first one. */
export function showLast(el, net) {
  const last = el.querySelector('[data-meter="last"]');
  last.textContent = net == null ? "\u2013" : signedMoney(net);
  last.dataset.sign = net > 0 ? "plus" : net < 0 ? "minus" : "zero";
}

/** The table's limits under its name (``extra`` after the main ones); the tie's last, in a
 * span a phone on its side hides (they are on the rules page). */
export function limitsLine(limits, ...extra) {
  const tie = tieLimitsText(limits);
  return h("p", { class: "muted" }, limitsText(limits), ...extra, tie ? h("span", { class: "tie-limits", text: ` \u00b7 ${tie}` }) : null);
}

// The message line under the table, and what it says ({text, kind}). It is not a live
// region: what it shows is said through the page's one live region (sayMessage), but not
// the "Dealing…" of every round. A refusal or a warning is scrolled into view (a zoomed
// page scrolls).
export const messageView = () => h("p", { id: "table-message", class: "message" });

// The kinds of message shown and not said: "progress" (the "Dealing…" of every round) and
// "result" (the round's one sentence says it, reveal.js resultText).
const UNSAID = new Set(["progress", "result"]);

/**
 * A felt's message, shown on its line (`el`: the view, if drawn) and said (announce()) as it
 * is shown, once: what the table did, a warning, a refusal. Every felt says its messages
 * through here.
 */
export function sayMessage(el, message) {
  if (el) showMessage(el, message);
  if (message.text && !UNSAID.has(message.kind)) announce(message.text);
}

/** Show a message on the line (a redraw shows it again, without saying it). */
export function showMessage(el, { text, kind }) {
  const message = el.querySelector("#table-message");
  const changed = message.textContent !== text;
  message.textContent = text;
  message.dataset.kind = kind;
  if (changed && text && (kind === "error" || kind === "warn")) message.scrollIntoView({ block: "nearest" });
}

/**
 * Turn controls on and off ([element, on] pairs) without losing the keyboard's place. A
 * focused control that goes off keeps the focus while `hold` (aria-disabled: it says it is
 * off and a press does nothing; a round being dealt); else the focus first moves to
 * `next()`, the control of the next thing to do (none: it stays, aria-disabled).
 */
export function setControls(pairs, { hold = false, next = null } = {}) {
  const active = document.activeElement;
  let stays = null;
  for (const [control, on] of pairs) {
    if (!on && control === active) {
      stays = control;
      continue;
    }
    control.disabled = !on;
    control.removeAttribute("aria-disabled");
  }
  if (!stays) return;
  const target = hold || !next ? null : next();
  if (target && target !== stays && !target.disabled && target.isConnected) {
    target.focus({ preventScroll: false });
    stays.disabled = true;
    stays.removeAttribute("aria-disabled");
  } else {
    stays.disabled = false;
    stays.setAttribute("aria-disabled", "true");
  }
}

/** Where the focus goes when it fell to the page (a control it was on went away). */
export function focusLost(view) {
  const active = document.activeElement;
  return !active || active === document.body || active === view;
}

/** An icon of the table's head (a path in a 24x24 box, drawn in the text's colour). */
export function icon(path) {
  // The parser gives the markup its SVG namespace (the paths are this module's constants).
  const holder = document.createElement("div");
  holder.innerHTML =
    '<svg class="icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">' +
    `<path d="${path}" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"></path></svg>`;
  return holder.firstChild;
}

/**
 * A link of the table's head with an icon and its words; where the head is narrow only the
 * icon shows, the words stay its name (.link-text).
 */
export const iconLink = (href, path, text, attrs = {}) =>
  h("a", { class: "btn small with-icon", href, ...attrs }, icon(path), h("span", { class: "link-text", text }));

export const BACK_ICON = "M19 12H5M11 6l-6 6 6 6";
export const HISTORY_ICON = "M12 3a9 9 0 1 1-8.5 6M3 4v5h5M12 8v4.5l3 2";

// The links in the table's head: its rules, the cashier, and any more given.
export const headLinks = (tbl, ...more) =>
  h(
    "div",
    { class: "head-links" },
    h("a", {
      class: "btn small icon",
      href: `#/rules/${encodeURIComponent(tbl.id)}`,
      "aria-label": t("nav.rules"),
      title: t("nav.rules"),
      text: "?",
    }),
    h("a", { class: "btn small icon", href: "#/cashier", "aria-label": t("nav.cashier"), title: t("nav.cashier"), text: currencySymbol() }),
    ...more,
  );

/**
 * A casino table's page (the house table's, a shared table's), in the keyboard's order: the
 * head (back, the table's name and limits: `name`, the options, the links), the chip rack,
 * the `felt`, the buttons (DEAL after the spots; `act(action)` runs one), the scoreboard, the
 * displays, an `aside` (a shared table's clock, totals and shoe) and the message line; the
 * grid places them where they show.
 */
export const tableView = (tbl, { className, name, rack, felt, buttons, act, aside = null }) =>
  h(
    "section",
    { class: className, "data-table": tbl.id, "aria-labelledby": "table-title", tabindex: "-1" },
    h(
      "div",
      { class: "table-head" },
      iconLink("#/", BACK_ICON, t("table.back"), { "data-back": "" }),
      h("div", { class: "table-name" }, ...name),
      optionsView(),
      headLinks(tbl, iconLink("#/history", HISTORY_ICON, t("nav.history"))),
    ),
    h("div", { class: "rack-row" }, rack),
    felt,
    controlsView(buttons, act),
    roadsSlot(),
    metersView(),
    aside,
    messageView(),
  );
