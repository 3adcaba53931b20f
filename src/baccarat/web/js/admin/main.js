// The back office (/admin/): staff login with a second factor, then the pages the role
// may open. Each page asks the API, which checks the role again. It speaks the staff
// member's language (the table's four: the browser's, or the one chosen in the header).

import { fill, h } from "../dom.js";
import { addCatalogs, LANGUAGES, language, onLanguage, pickLanguage, setLanguage, t } from "../i18n.js";
import * as api from "./api.js";
import { showCashier, showEvents, showSettings, showTables, showVoids } from "./desk.js";
import { show as showPlayers, showRound } from "./players.js";
import { show as showReports } from "./reports.js";
import { showAccount, showStaff } from "./staff.js";
import { named, refusal } from "./ui.js";

// Page, the permission it needs and what draws it (its name: the catalog's office.page.*).
const PAGES = [
  ["reports", "reports", showReports],
  ["players", "players", showPlayers],
  ["rounds", "rounds", showRound],
  ["voids", "void_propose", showVoids],
  ["cashier", "cashier", showCashier],
  ["tables", "tables", showTables],
  ["events", "events", showEvents],
  ["settings", "settings", showSettings],
  ["staff", "staff", showStaff],
  ["account", "own_password", showAccount],
];

const $ = (id) => document.getElementById(id);
let staff = null;

function allowed() {
  return PAGES.filter(([, permission]) => staff.permissions.includes(permission));
}

async function route() {
  const pages = allowed();
  const wanted = location.hash.slice(1);
  const page = pages.find(([name]) => name === wanted) || pages[0];
  for (const link of $("office-nav").querySelectorAll("a")) {
    if (link.dataset.page === page[0]) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.title = `${t(`office.page.${page[0]}`)} · ${t("office.title")}`;
  const view = $("office-view");
  // The page drawn and its data in (the browser tests wait for it).
  view.dataset.page = page[0];
  view.dataset.ready = "false";
  try {
    await page[2](view, staff);
  } catch (failure) {
    if (failure.status === 401) return loggedOut();
    fill(view, h("p", { class: "office-error", role: "alert", text: refusal(failure) }));
  }
  if (view.dataset.page === page[0]) view.dataset.ready = "true";
}

function drawHeader() {
  $("office-name").textContent = staff ? t("office.who", { name: staff.name, role: named("role", staff.role) }) : "";
  const links = staff
    ? allowed().map(([name]) => h("a", { href: `/admin/#${name}`, "data-page": name, text: t(`office.page.${name}`) }))
    : [];
  fill($("office-nav"), ...links);
}

function loggedIn(who) {
  staff = who;
  $("office-login").hidden = true;
  $("office-who").hidden = false;
  drawHeader();
  $("office-nav").hidden = false;
  return route();
}

function loggedOut() {
  staff = null;
  $("office-nav").hidden = true;
  $("office-who").hidden = true;
  fill($("office-view"));
  document.title = t("office.title");
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
    $("office-login-error").textContent = refusal(failure);
  }
}

/** The header's language picker: each language by its own name. */
function languagePicker() {
  const select = $("office-lang");
  for (const [code, info] of Object.entries(LANGUAGES)) select.append(h("option", { value: code, lang: code, text: info.name }));
  select.value = language();
  select.addEventListener("change", () => setLanguage(select.value, { remember: true }));
  onLanguage(() => {
    select.value = language();
    $("office-login-error").textContent = "";
    drawHeader();
    if (staff) route();
    else document.title = t("office.title");
  });
}

async function start() {
  addCatalogs("admin");
  await setLanguage(pickLanguage());
  languagePicker();
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
