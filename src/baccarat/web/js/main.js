// Boot: language, session, header, and the hash router over the views.

import { applyStatic, LANGUAGES, language, money, onLanguage, pickLanguage, setLanguage, t } from "./i18n.js";
import { isOn, setOn } from "./sound.js";
import * as store from "./state.js";
import { clear, enterView, webAddress } from "./dom.js";
import * as operator from "./operator.js";
import * as inactive from "./inactive.js";
import * as watch from "./watch.js";

const views = {
  "": () => import("./lobby.js"),
  table: () => import("./table.js"),
  history: () => import("./history.js"),
  recall: () => import("./recall.js"),
  multi: () => import("./multitable.js"),
  rules: () => import("./rules.js"),
  cashier: () => import("./cashier.js"),
  seat: () => import("./seat.js"),
  responsible: () => import("./responsible.js"),
};

const main = document.getElementById("main");
let current = null;

// Our own casino's pages an operator's session does not show: its money is the operator's
// (the cashier, and the account panel in it: password, sessions).
const OURS_ONLY = new Set(["cashier"]);

function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const known = views[parts[0]] && !(store.state.operator && OURS_ONLY.has(parts[0]));
  const name = known ? parts[0] : "";
  return { name, arg: parts[1] || null };
}

let shown = 0;
let latest = Promise.resolve();

/**
 * Show the view the address names. A view the player went to (`moved`: not the page's first,
 * nor the same one drawn again in another language) takes the focus to its heading; every
 * view is named in the title. Addresses changed quickly (a view still reading the server when
 * the next is asked for): the last one asked for is shown, an earlier view finishing late
 * draws nowhere, and the promise of any of them is kept when the last one is drawn (the page
 * is ready then).
 */
function show(options) {
  const mine = ++shown;
  latest = draw(mine, options);
  return latest;
}

async function draw(mine, { moved = true } = {}) {
  const { name, arg } = route();
  const module = await views[name]();
  if (mine !== shown) return latest;
  if (current && current.destroy) current.destroy();
  current = null;
  clear(main);
  // A view's dialogs go with it (a confirmation left open, or one closed with Esc and still
  // in the page): open, it would stay over the next view and take its clicks. The app's own
  // (the reality check, data-app) stay.
  for (const dialog of document.querySelectorAll("dialog:not([data-app])")) {
    dialog.close();
    dialog.remove();
  }
  document.body.dataset.view = name || "lobby";
  for (const link of document.querySelectorAll(".nav a")) {
    const target = link.getAttribute("href").replace(/^#\/?/, "");
    link.toggleAttribute("aria-current", target === name);
    if (target === name) link.setAttribute("aria-current", "page");
  }
  // Each view draws in a box of its own (display: contents), dropped by the next view.
  const root = document.createElement("div");
  root.className = "view-root";
  main.append(root);
  const view = (await module.render(root, arg)) || null;
  if (mine !== shown) {
    if (view && view.destroy) view.destroy();
    return latest;
  }
  current = view;
  named({ focus: moved });
}

/** The view shown is named in the title (its heading's words), and focused with `focus`. */
function named({ focus = false } = {}) {
  enterView(main, t("app.title"), { focus, fallback: t(`nav.${route().name || "lobby"}`) });
}

function drawHeader() {
  const { user, mode, online, operator } = store.state;
  document.body.classList.toggle("logged-in", Boolean(user));
  // A session an operator launched: its mode alone, none of our own casino's tools, and the
  // way back to the operator's lobby.
  document.body.classList.toggle("operator-session", Boolean(operator));
  const lobby = operator && operator.lobby_url ? webAddress(operator.lobby_url) : null;
  const back = document.getElementById("casino-back");
  back.hidden = !lobby;
  if (lobby) back.href = lobby;
  const net = document.getElementById("net-state");
  net.hidden = online;
  net.textContent = online ? "" : t("net.offline");
  document.getElementById("who").textContent = user ? user.nickname : "";
  for (const button of document.querySelectorAll("[data-mode]")) {
    const m = button.dataset.mode;
    button.hidden = Boolean(operator) && m !== operator.mode;
    button.setAttribute("aria-pressed", String(m === mode));
    button.querySelector(".amount").textContent = user ? money(store.shownBalance(m)) : "";
  }
  const sound = document.getElementById("sound");
  sound.setAttribute("aria-pressed", String(isOn()));
  sound.querySelector(".wave").style.display = isOn() ? "" : "none";
  sound.querySelector(".mute").style.display = isOn() ? "none" : "";
  sound.setAttribute("aria-label", t(isOn() ? "sound.on" : "sound.off"));
  sound.title = sound.getAttribute("aria-label");
}

function wireHeader() {
  // "Skip to the game" focuses the view itself: its #main is no route (the router would
  // show the lobby), so the address stays what it is.
  document.querySelector(".skip").addEventListener("click", (event) => {
    event.preventDefault();
    main.focus();
  });
  const select = document.getElementById("lang");
  // On a phone the table's header has room for a language's code, not its name.
  const narrow = window.matchMedia("(max-width: 600px)");
  const options = Object.entries(LANGUAGES).map(([code, info]) => {
    const option = document.createElement("option");
    option.value = code;
    option.title = info.name;
    option.lang = code;
    select.append(option);
    return [option, code, info.name];
  });
  const name = () => {
    for (const [option, code, full] of options) {
      option.textContent = narrow.matches ? code.toUpperCase() : full;
    }
  };
  name();
  narrow.addEventListener("change", name);
  select.value = language();
  select.addEventListener("change", () => setLanguage(select.value, { remember: true }));
  for (const button of document.querySelectorAll("[data-mode]")) {
    button.addEventListener("click", () => store.setMode(button.dataset.mode));
  }
  document.getElementById("sound").addEventListener("click", () => {
    setOn(!isOn());
    drawHeader();
  });
  document.getElementById("logout").addEventListener("click", async () => {
    await store.logout().catch(() => {});
    location.hash = "#/";
    show();
  });
  store.onChange(drawHeader);
  onLanguage(() => {
    select.value = language();
    drawHeader();
    if (current && current.relabel) {
      current.relabel();
      named();
    } else show({ moved: false });
  });
}

async function boot() {
  // A table in a frame of several tables' screen (js/multitable.js): the table alone.
  document.body.classList.toggle("embedded", new URLSearchParams(location.search).has("embed"));
  await Promise.all([setLanguage(pickLanguage()), store.restore()]);
  store.watchWallet();
  wireHeader();
  applyStatic(document);
  drawHeader();
  window.addEventListener("hashchange", () => show());
  watch.start();
  operator.start();
  inactive.start();
  await show({ moved: false });
  document.documentElement.dataset.ready = "true";
  performance.mark("baccarat-ready");
}

boot();
