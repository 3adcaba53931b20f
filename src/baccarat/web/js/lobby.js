// The lobby: log in / register, both balances and the mode, and the tables.

import * as api from "./api.js";
import { fill, h } from "./dom.js";
import { errorText, orRefusal } from "./errors.js";
import { dateTime, money, percent, t } from "./i18n.js";
import { describeRules, limitsText, tableName, tieLimitsText } from "./rulesinfo.js";
import { multiLink } from "./multitable.js";
import * as store from "./state.js";

function authForm(onDone) {
  const message = h("p", { class: "message", role: "alert" });
  const nickname = h("input", {
    id: "nickname",
    name: "nickname",
    autocomplete: "username",
    required: true,
    minlength: 3,
    maxlength: 32,
  });
  const password = h("input", {
    id: "password",
    name: "password",
    type: "password",
    autocomplete: "current-password",
    required: true,
    minlength: 8,
  });
  async function submit(action) {
    message.textContent = "";
    if (!nickname.value.trim() || !password.value) {
      message.textContent = t("auth.missing");
      return;
    }
    try {
      if (action === "register") await store.register(nickname.value.trim(), password.value);
      else await store.login(nickname.value.trim(), password.value);
      onDone();
    } catch (error) {
      message.textContent = errorText(error);
    }
  }
  const form = h(
    "form",
    {
      class: "panel auth",
      "aria-labelledby": "auth-title",
      onsubmit: (event) => {
        event.preventDefault();
        submit(event.submitter && event.submitter.value === "register" ? "register" : "login");
      },
    },
    h("h2", { id: "auth-title", text: t("auth.title") }),
    h("p", { class: "muted", text: t("auth.intro") }),
    h("label", { for: "nickname", text: t("auth.nickname") }),
    nickname,
    h("label", { for: "password", text: t("auth.password") }),
    password,
    h(
      "div",
      { class: "row" },
      h("button", { type: "submit", class: "btn primary", value: "login", id: "login-btn", text: t("auth.login") }),
      h("button", { type: "submit", class: "btn", value: "register", id: "register-btn", text: t("auth.register") }),
    ),
    message,
  );
  return form;
}

// What the last top-up did: kept across redraws (the balance change redraws the panel).
let walletNote = "";

// The player's time-out or self-exclusion as the server has it (GET /api/responsible), or
// null: while it lasts the lobby says so, and offers no Play and no top-up.
let exclusion = null;

async function readExclusion() {
  if (!store.state.user) {
    exclusion = null;
    return;
  }
  const [state] = await orRefusal(api.get("/api/responsible"), null);
  exclusion = state ? state.exclusion : null;
}

function exclusionNote() {
  if (!exclusion) return null;
  return h(
    "div",
    { class: "panel rg-excluded", "data-exclusion": exclusion.kind, role: "status" },
    h("p", { text: t(`rg.excluded_${exclusion.kind}`, { time: dateTime(exclusion.until) }) }),
    h("p", { class: "muted", text: t("lobby.excluded_note") }),
  );
}

function walletPanel(redraw) {
  const { wallet, mode, user, operator } = store.state;
  // A session an operator launched plays in its mode alone: the operator's money, or play
  // money of ours for a demo (which it may top up); our cashier is none of its tools.
  const modes = operator ? [operator.mode] : ["fun", "real"];
  const message = h("p", { class: "message", role: "status", "data-message": "top-up", text: walletNote });
  const balanceCard = (m) =>
    h(
      "button",
      {
        class: `balance-card ${m}`,
        "data-wallet": m,
        "aria-pressed": String(mode === m),
        onclick: () => store.setMode(m),
      },
      h("span", { class: "label", text: t(`mode.${m}`) }),
      h("span", { class: "value", text: money(wallet[m] || 0) }),
    );
  return h(
    "section",
    { class: "panel wallet", "aria-labelledby": "wallet-title" },
    h("h2", { id: "wallet-title", text: t("lobby.welcome", { name: user.nickname }) }),
    operator ? null : h("p", { class: "muted", text: t("lobby.mode_help") }),
    h("div", { class: "balances" }, modes.map(balanceCard)),
    h(
      "div",
      { class: "row" },
      h("button", {
        class: "btn",
        id: "top-up",
        hidden: Boolean(operator) && operator.mode !== "fun",
        text: t("lobby.top_up"),
        disabled: Boolean(exclusion),
        onclick: async () => {
          try {
            const data = await api.postOnce("/api/wallet/fun/top-up");
            const added = data && typeof data.added === "number" ? data.added : 0;
            walletNote =
              added > 0
                ? t("lobby.topped_up_by", { added: money(added), amount: money(data.fun) })
                : t("lobby.top_up_full", { amount: money(data.fun), target: money(data.up_to) });
            if (data && typeof data.fun === "number") store.setBalance("fun", data.fun);
            else await store.refreshWallet();
            redraw();
          } catch (error) {
            walletNote = errorText(error);
            message.textContent = walletNote;
          }
        },
      }),
      operator ? null : h("a", { class: "btn", href: "#/cashier", text: t("nav.cashier") }),
      h("a", { class: "btn", href: "#/history", text: t("nav.history") }),
    ),
    message,
  );
}

function rtpList(rtp) {
  if (!rtp) return null;
  return h(
    "dl",
    { class: "rtp" },
    MAIN_BETS.map((bet) => (rtp[bet] == null ? null : [h("dt", { text: t(`spot.${bet}`) }), h("dd", { text: percent(rtp[bet]) })])),
  );
}

const MAIN_BETS = ["banker", "player", "tie"];

// The side bets a table takes, by name (their pays and RTP are on its rules page).
function sideBets(tbl) {
  const names = Object.keys(tbl.bets || {}).filter((bet) => !MAIN_BETS.includes(bet));
  if (!names.length) return null;
  return h(
    "p",
    { class: "side-bets", "data-side-bets": names.join(" ") },
    h("strong", { text: `${t("rules.side_bets")}:` }),
    " ",
    names.map((bet) => t(`spot.${bet}`)).join(" · "),
  );
}

function playButton(tbl) {
  // In a time-out or a self-exclusion: shown, but it opens nothing (the note says until when).
  if (exclusion) return h("button", { class: "btn primary", type: "button", disabled: true, text: t("lobby.play") });
  return h("a", { class: "btn primary", href: `#/table/${encodeURIComponent(tbl.id)}`, text: t("lobby.play") });
}

function tableCard(tbl) {
  // Closed by the casino for now (GET /api/tables says so): no Play, and the reason.
  const open = tbl.open !== false;
  return h(
    "article",
    { class: "table-card", "data-table": tbl.id, "data-open": String(open), "aria-labelledby": `tc-${tbl.id}` },
    h("div", { class: "mini-felt", "aria-hidden": "true" }, h("span", { text: tableName(tbl) })),
    h("h3", { id: `tc-${tbl.id}`, text: tableName(tbl) }),
    h("p", { class: "summary", text: describeRules(tbl) }),
    h("p", { class: "limits" }, h("strong", { text: t("lobby.limits") }), " ", limitsText(tbl.limits)),
    tieLimitsText(tbl.limits) ? h("p", { class: "limits tie" }, tieLimitsText(tbl.limits)) : null,
    h("p", { class: "rtp-title", text: t("lobby.rtp") }),
    rtpList(tbl.rtp),
    sideBets(tbl),
    tbl.shared ? sharedLine(tbl) : null,
    open ? null : h("p", { class: "closed-note", "data-closed": "", text: t("lobby.closed") }),
    h(
      "div",
      { class: "row" },
      open ? playButton(tbl) : null,
      h("a", { class: "btn", href: `#/rules/${encodeURIComponent(tbl.id)}`, text: t("nav.rules") }),
    ),
  );
}

// How often the lobby reads the tables again while it shows (and on every return to it):
// a table the casino closed or reopened, or whose limits it changed, shows so within 15 s.
// The browser asks again with the answer's ETag: while nothing changed, the server answers
// 304 with no body (store.tables), some 200 bytes, where the whole answer is 31 KB (3 KB
// gzipped).
const TABLES_EVERY_MS = 15000;

// A shared table's card: live, its betting time, and its phase and last results (filled in
// by js/shared.js while the lobby shows).
const sharedLine = (tbl) =>
  h(
    "div",
    { class: "shared-card" },
    h("p", { class: "shared-kind" }, h("strong", { text: t("shared.live") }), " ", t("shared.window", { n: tbl.shared.betting_s })),
    h("p", { class: "shared-now", "data-live": tbl.id, "aria-live": "off" }),
    h(
      "p",
      { class: "shared-last" },
      h("span", { class: "muted", text: `${t("shared.last_results")}:` }),
      h("span", { class: "last-results", "data-last": tbl.id }),
    ),
  );

export async function render(root) {
  const section = h("div", { class: "lobby" });
  root.append(section);
  const [tables, loadError] = await orRefusal(store.tables({ fresh: true }), []);
  // Player-banked tables have seats instead of a Play button (js/seats-lobby.js).
  let banked = null;
  let loading = false;
  async function loadBanked() {
    loading = true;
    const { BankedLobby } = await import("./seats-lobby.js");
    banked = await new BankedLobby(tables).start();
    draw();
  }
  await readExclusion();
  let reader = store.state.user;
  if (store.state.user && tables.some((tbl) => tbl.banked)) await loadBanked();
  function draw() {
    if (store.state.user !== reader) {
      // Logged in or out: the exclusion is read again (its answer redraws).
      reader = store.state.user;
      readExclusion().then(() => section.isConnected && draw());
    }
    if (store.state.user && !loading && tables.some((tbl) => tbl.banked)) loadBanked();
    if (!store.state.user && banked) {
      banked.destroy();
      banked = null;
      loading = false;
    }
    fill(
      section,
      h("h1", { class: "page-title", text: t("lobby.title") }),
      store.state.user ? exclusionNote() : null,
      h("div", { class: "lobby-top" }, store.state.user ? walletPanel(draw) : authForm(draw)),
      h("h2", { class: "section-title", text: t("lobby.tables") }),
      multiLink(),
      loadError ? h("p", { class: "message", role: "alert", text: loadError }) : null,
      h("div", { class: "tables" }, tables.filter((tbl) => !tbl.banked).map(tableCard)),
      banked ? banked.draw() : null,
    );
  }
  draw();
  store.onChange(draw);
  async function reread() {
    if (document.visibilityState !== "visible") return;
    const [fresh] = await orRefusal(store.tables({ fresh: true }), null);
    if (!fresh || !section.isConnected || JSON.stringify(fresh) === JSON.stringify(tables)) return;
    tables.splice(0, tables.length, ...fresh);
    draw();
  }
  const every = setInterval(reread, TABLES_EVERY_MS);
  window.addEventListener("focus", reread);
  document.addEventListener("visibilitychange", reread);
  // Shared tables: their phase and last results, read while the lobby shows.
  const live = tables.some((tbl) => tbl.shared) ? (await import("./shared.js")).watchLobby(section, tables) : null;
  return {
    destroy: () => {
      store.offChange(draw);
      clearInterval(every);
      window.removeEventListener("focus", reread);
      document.removeEventListener("visibilitychange", reread);
      if (banked) banked.destroy();
      if (live) live.stop();
    },
    relabel: draw,
  };
}
