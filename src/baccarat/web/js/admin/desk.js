// The desk: cashier approvals, proposed voids, tables (kill switch and limits), the
// significant events and the thresholds that make a win or a wager one of them.

import { fill, h } from "../dom.js";
import { t } from "../i18n.js";
import { tableName } from "../rulesinfo.js";
import * as api from "./api.js";
import { askForm, cents, code, keyValues, minor, named, panel, reasonForm, table, when } from "./ui.js";

export async function showCashier(view) {
  const load = async () => {
    const found = await api.get("cashier");
    fill(
      view,
      h("h1", { text: t("office.page.cashier") }),
      panel(
        t("office.cashier.pending"),
        null,
        table(found.requests, [
          ["id", t("office.col.id")],
          ["nickname", t("office.col.player")],
          ["kind", t("office.col.kind"), (kind) => named("kind", kind)],
          ["amount", t("office.col.amount"), (amount, request) => minor(amount, request.currency)],
          ["time", t("office.col.time"), when],
          [
            "id",
            t("office.col.decision"),
            (id) =>
              h(
                "div",
                null,
                reasonForm(t("office.approve"), async (reason) => {
                  await api.post(`cashier/${id}`, { approve: true, reason });
                  await load();
                }),
                reasonForm(
                  t("office.reject"),
                  async (reason) => {
                    await api.post(`cashier/${id}`, { approve: false, reason });
                    await load();
                  },
                  { danger: true },
                ),
              ),
          ],
        ]),
      ),
    );
  };
  await load();
}

export async function showVoids(view, staff) {
  const load = async () => {
    const found = await api.get("voids");
    const decide = staff.permissions.includes("void_approve");
    const columns = [
      ["id", t("office.col.id")],
      ["round", t("office.col.round"), code],
      ["reason", t("office.col.reason")],
      ["proposed_by", t("office.col.proposed_by")],
      ["proposed", t("office.col.time"), when],
    ];
    if (decide) {
      columns.push([
        "id",
        t("office.col.decision"),
        (id) =>
          h(
            "div",
            null,
            reasonForm(
              t("office.voids.approve"),
              async (reason) => {
                await api.post(`voids/${id}`, { approve: true, reason });
                await load();
              },
              { danger: true },
            ),
            reasonForm(t("office.reject"), async (reason) => {
              await api.post(`voids/${id}`, { approve: false, reason });
              await load();
            }),
          ),
      ]);
    }
    fill(view, h("h1", { text: t("office.voids.title") }), panel(t("office.voids.proposed"), null, table(found.proposals, columns)));
  };
  await load();
}

const LIMITS = ["min", "max", "tie_min", "tie_min_alone", "tie_max"];

function limitsForm(row, reload) {
  const inputs = LIMITS.map((name) =>
    h("input", {
      name,
      type: "number",
      min: "1",
      value: String(row.limits[name]),
      "aria-label": t("office.tables.limit_input", { table: tableName(row), limit: t(`office.limit.${name}`) }),
    }),
  );
  return reasonForm(
    t("office.tables.set_limits"),
    async (reason) => {
      const limits = Object.fromEntries(LIMITS.map((name, i) => [name, Number(inputs[i].value)]));
      await api.put(`tables/${row.id}/limits`, { limits, reason });
      await reload();
    },
    { extra: LIMITS.map((name, i) => h("label", { class: "office-limit" }, t(`office.limit.${name}`), inputs[i])) },
  );
}

export async function showTables(view, staff) {
  const change = staff.permissions.includes("tables_change");
  const load = async () => {
    const found = await api.get("tables");
    const columns = [
      ["id", t("office.col.table"), (id, row) => h("span", null, `${tableName(row)} `, code(id))],
      ["rules", t("office.col.rules"), code],
      [
        "enabled",
        t("office.col.state"),
        (on) => h("span", { class: on ? "status-on" : "status-off", text: t(on ? "office.tables.open" : "office.tables.closed") }),
      ],
      [
        "limits",
        t("office.col.limits"),
        (l, row) =>
          t(row.changed ? "office.tables.limits_changed" : "office.tables.limits", {
            min: cents(l.min),
            max: cents(l.max),
            tie_min: cents(l.tie_min),
            tie_max: cents(l.tie_max),
          }),
      ],
    ];
    if (change) {
      const kill = (row) =>
        reasonForm(
          t(row.enabled ? "office.tables.close" : "office.tables.reopen"),
          async (reason) => {
            await api.put(`tables/${row.id}/switch`, { enabled: !row.enabled, reason });
            await load();
          },
          { danger: row.enabled },
        );
      // The kill switch, and the limits from the next round (the house's tables).
      columns.push([
        (row) => row,
        t("office.col.change"),
        (row) => h("div", { class: "office-changes" }, kill(row), row.banked ? null : limitsForm(row, load)),
      ]);
    }
    const shown = panel(
      t("office.page.tables"),
      null,
      table(found.tables, columns, (row) => (row.enabled ? null : "alarm")),
    );
    shown.classList.add("office-tables");
    const note = change ? h("p", { class: "muted", text: t("office.tables.note") }) : null;
    fill(view, h("h1", { text: t("office.page.tables") }), note, shown);
  };
  await load();
}

export async function showEvents(view) {
  const kind = h("select", { name: "kind" }, h("option", { value: "", text: t("office.events.every_kind") }));
  const since = h("input", { type: "date", name: "since" });
  const target = h("div");
  const load = async () => {
    const query = new URLSearchParams();
    if (kind.value) query.set("kind", kind.value);
    if (since.value) query.set("since", since.value);
    const [found, software] = await Promise.all([api.get(`events?${query}`), api.get("software")]);
    if (kind.options.length === 1) {
      for (const k of found.kinds) kind.append(h("option", { value: k, text: named("event", k) }));
    }
    const last = software.last;
    fill(
      target,
      panel(
        t("office.events.software"),
        null,
        keyValues([
          [t("office.events.software_id"), code(software.software_id)],
          [
            t("office.events.last_verification"),
            last
              ? t("office.events.verified", { status: named("software", last.details.status), time: when(last.time) })
              : t("office.none"),
          ],
        ]),
      ),
      panel(
        t("office.events.title_log"),
        null,
        table(found.events, [
          ["time", t("office.col.time"), when],
          ["id", t("office.col.id")],
          ["kind", t("office.col.kind"), (k) => named("event", k)],
          ["actor", t("office.col.actor"), code],
          ["subject", t("office.col.subject"), code],
          ["details", t("office.col.details"), code],
        ]),
      ),
    );
  };
  const form = askForm(
    [h("label", null, t("office.col.kind"), kind), h("label", null, t("office.events.since"), since)],
    t("office.filter"),
    load,
  );
  fill(view, h("h1", { text: t("office.events.title") }), form, target);
  await load();
}

/** The large-win and large-wager thresholds: USD's, and each currency's (an admin's). */
export async function showSettings(view) {
  const load = async () => {
    const found = await api.get("settings");
    const rows = [
      { currency: "USD", large_win: found.large_win, large_wager: found.large_wager, own: null },
      ...Object.entries(found.currencies).map(([currency, values]) => ({ currency, ...values })),
    ];
    const inCurrency = (value, row) => minor(value, row.currency);
    const currency = h("select", { name: "currency" }, ...rows.map((row) => h("option", { value: row.currency, text: row.currency })));
    const amount = (name) => h("input", { name, type: "number", min: "1", required: true });
    const win = amount("large_win");
    const wager = amount("large_wager");
    const change = reasonForm(
      t("office.settings.set"),
      async (reason) => {
        await api.put("settings", { currency: currency.value, large_win: Number(win.value), large_wager: Number(wager.value), reason });
        await load();
      },
      {
        extra: [
          h("label", null, t("office.col.currency"), currency),
          h("label", null, t("office.settings.large_win_minor"), win),
          h("label", null, t("office.settings.large_wager_minor"), wager),
        ],
      },
    );
    const fillIn = () => {
      const row = rows.find((r) => r.currency === currency.value);
      win.value = String(row.large_win);
      wager.value = String(row.large_wager);
    };
    currency.addEventListener("change", fillIn);
    fillIn();
    fill(
      view,
      h("h1", { text: t("office.page.settings") }),
      h("p", { class: "muted", text: t("office.settings.note") }),
      panel(
        t("office.settings.thresholds"),
        null,
        table(rows, [
          ["currency", t("office.col.currency")],
          ["large_win", t("office.settings.large_win"), inCurrency],
          ["large_wager", t("office.settings.large_wager"), inCurrency],
          ["own", t("office.settings.own"), (own) => (own === null ? "" : t(own ? "office.settings.own_yes" : "office.settings.own_no"))],
        ]),
      ),
      panel(t("office.settings.change"), null, change),
    );
  };
  await load();
}
