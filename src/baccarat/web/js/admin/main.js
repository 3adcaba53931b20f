// The back office (/admin/): staff login with a second factor, then the pages the role
// may open. Each page asks the API, which checks the role again.

import { fill, h } from "../dom.js";
import { setLanguage } from "../i18n.js";
import * as api from "./api.js";
import { showCashier, showEvents, showTables, showVoids } from "./desk.js";
import { show as showPlayers, showRound } from "./players.js";
import { show as showReports } from "./reports.js";
import { showAccount, showStaff } from "./staff.js";

// Page, its label, the permission it needs and what draws it.
const PAGES = [
  ["reports", "Reports", "reports", showReports],
  ["players", "Players", "players", showPlayers],
  ["rounds", "Rounds", "rounds", showRound],
  ["voids", "Voids", "void_propose", showVoids],
  ["cashier", "Cashier", "cashier", showCashier],
  ["tables", "Tables", "tables", showTables],
  ["events", "Events", "events", showEvents],
  ["staff", "Staff", "staff", showStaff],
  ["account", "My account", "own_password", showAccount],
];

const $ = (id) => document.getElementById(id);
let staff = null;

function allowed() {
  return PAGES.filter(([, , permission]) => staff.permissions.includes(permission));
}

async function route() {
  const pages = allowed();
  const wanted = location.hash.slice(1);
  const page = pages.find(([name]) => name === wanted) || pages[0];
  for (const link of $("office-nav").querySelectorAll("a")) {
    if (link.dataset.page === page[0]) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const view = $("office-view");
  // The page drawn and its data in (the browser tests wait for it).
  view.dataset.page = page[0];
  view.dataset.ready = "false";
  try {
    await page[3](view, staff);
  } catch (failure) {
    if (failure.status === 401) return loggedOut();
    fill(view, h("p", { class: "office-error", role: "alert", text: failure.message }));
  }
  if (view.dataset.page === page[0]) view.dataset.ready = "true";
}

function loggedIn(who) {
  staff = who;
  $("office-login").hidden = true;
  $("office-who").hidden = false;
  $("office-name").textContent = `${who.name} (${who.role})`;
  const nav = $("office-nav");
  fill(nav, ...allowed().map(([name, label]) => h("a", { href: `/admin/#${name}`, "data-page": name, text: label })));
  nav.hidden = false;
  return route();
}

function loggedOut() {
  staff = null;
  $("office-nav").hidden = true;
  $("office-who").hidden = true;
  fill($("office-view"));
  $("office-login").hidden = false;
  $("office-login-form").elements.name.focus();
}

async function logIn(event) {
  event.preventDefault();
  const form = event.target;
  $("office-login-error").textContent = "";
  try {
    const answer = await api.post("sessions", {
      name: form.elements.name.value,
      password: form.elements.password.value,
      code: form.elements.code.value,
    });
    form.reset();
    await loggedIn(answer.staff);
  } catch (failure) {
    $("office-login-error").textContent = failure.message;
  }
}

async function start() {
  await setLanguage("en");
  $("office-login-form").addEventListener("submit", logIn);
  $("office-logout").addEventListener("click", async () => {
    await api.request("DELETE", "sessions").catch(() => null);
    loggedOut();
  });
  window.addEventListener("hashchange", () => staff && route());
  const state = await api.get("session").catch(() => ({ logged_in: false }));
  if (state.logged_in) await loggedIn(state.staff);
  else loggedOut();
}

start();
