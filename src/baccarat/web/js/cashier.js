// The cashier: real-money deposit and withdrawal requests and their status.

import { accountPanel } from "./account.js";
import * as api from "./api.js";
import { fill, h } from "./dom.js";
import { errorText } from "./errors.js";
import { loginFirst } from "./gate.js";
import { dateTime, money, parseMoney, t } from "./i18n.js";
import * as store from "./state.js";

const BASE = "/api/wallet";

// What each form last did: kept when the page is drawn again after a request.
const notes = { deposit: "", withdrawal: "" };

function requestForm(kind, onDone) {
  const id = `${kind}-amount`;
  const input = h("input", { id, inputmode: "decimal", autocomplete: "off", required: true });
  const message = h("p", { class: "message", role: "status", "data-message": kind, text: notes[kind] });
  const say = (text) => {
    notes[kind] = text;
    message.textContent = text;
  };
  return h(
    "form",
    {
      class: "panel",
      "data-form": kind,
      onsubmit: async (event) => {
        event.preventDefault();
        const amount = parseMoney(input.value);
        if (!amount || amount <= 0) {
          say(t("cashier.bad_amount"));
          return;
        }
        if (kind === "withdrawal" && amount > store.state.wallet.real) {
          say(t("cashier.withdrawal_above", { amount: money(amount), balance: money(store.state.wallet.real) }));
          return;
        }
        try {
          await api.postOnce(`${BASE}/${kind}s`, { amount });
          input.value = "";
          // Said once the page is drawn again with the request listed (the form drawn anew
          // shows the note): an amount typed meanwhile is not wiped by that drawing.
          notes[kind] = t(`cashier.${kind}_sent`, { amount: money(amount) });
          await onDone();
          say(notes[kind]);
        } catch (error) {
          say(errorText(error));
        }
      },
    },
    h("h2", { text: t(`cashier.${kind}_title`) }),
    h("p", { class: "muted", text: t(`cashier.${kind}_help`) }),
    h("label", { for: id, text: t("cashier.amount") }),
    input,
    h("button", { class: "btn primary", type: "submit", text: t(`cashier.${kind}_button`) }),
    message,
  );
}

export async function render(root) {
  const page = h("div", { class: "cashier-page" });
  root.append(page);
  if (loginFirst(page)) return null;
  let requests = [];
  let error = null;
  async function load() {
    try {
      const lists = await Promise.all([api.get(`${BASE}/deposits`), api.get(`${BASE}/withdrawals`)]);
      requests = lists
        .flatMap((data) => (Array.isArray(data) ? data : data.items || []))
        .sort((a, b) => String(b.time).localeCompare(String(a.time)) || b.id - a.id);
      error = null;
    } catch (e) {
      error = errorText(e);
    }
    await store.refreshWallet().catch(() => {});
  }
  function draw() {
    fill(
      page,
      h("h1", { class: "page-title", text: t("nav.cashier") }),
      h(
        "div",
        { class: "balances" },
        h(
          "div",
          { class: "balance-card real" },
          h("span", { class: "label", text: t("mode.real") }),
          h("span", { class: "value", "data-cashier-balance": "real", text: money(store.state.wallet.real) }),
        ),
        h(
          "div",
          { class: "balance-card pending" },
          h("span", { class: "label", text: t("cashier.reserved") }),
          h("span", { class: "value", "data-cashier-balance": "pending", text: money(store.state.wallet.pending_withdrawals || 0) }),
        ),
        h(
          "div",
          { class: "balance-card fun" },
          h("span", { class: "label", text: t("mode.fun") }),
          h("span", { class: "value", text: money(store.state.wallet.fun) }),
        ),
      ),
      h("div", { class: "two" }, requestForm("deposit", reload), requestForm("withdrawal", reload)),
      accountPanel(),
      h(
        "section",
        { class: "panel" },
        h("h2", { text: t("cashier.requests") }),
        error ? h("p", { class: "message", text: error }) : null,
        requests.length
          ? h(
              "table",
              { class: "history" },
              h(
                "thead",
                null,
                h(
                  "tr",
                  null,
                  ["time", "kind", "amount", "status"].map((k) => h("th", { scope: "col", text: t(`cashier.col_${k}`) })),
                ),
              ),
              h(
                "tbody",
                null,
                requests.map((r) =>
                  h(
                    "tr",
                    { "data-request": r.id },
                    h("td", { text: dateTime(r.time || r.created_at) }),
                    h("td", { text: t(`cashier.kind_${r.kind || r.type}`) }),
                    h("td", { class: "num", text: money(r.amount) }),
                    h("td", { "data-status": r.status, text: t(`cashier.status_${r.status}`) }),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted", text: t("cashier.none") }),
      ),
    );
  }
  async function reload() {
    await load();
    draw();
  }
  await load();
  draw();
  return { relabel: draw };
}
