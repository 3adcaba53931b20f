// The desk: cashier approvals, proposed voids, tables (kill switch and limits) and the
// significant events.

import { fill, h } from "../dom.js";
import * as api from "./api.js";
import { cents, keyValues, panel, reasonForm, table } from "./ui.js";

export async function showCashier(view) {
  const load = async () => {
    const found = await api.get("cashier");
    fill(
      view,
      h("h1", { text: "Cashier" }),
      panel(
        "Pending deposits and withdrawals",
        null,
        table(found.requests, [
          ["id", "Id"],
          ["nickname", "Player"],
          ["kind", "Kind"],
          ["amount", "Amount", cents],
          ["time", "Time"],
          [
            "id",
            "Decision",
            (id) =>
              h(
                "div",
                null,
                reasonForm("Approve", async (reason) => {
                  await api.post(`cashier/${id}`, { approve: true, reason });
                  await load();
                }),
                reasonForm(
                  "Reject",
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
      ["id", "Id"],
      ["round", "Round"],
      ["reason", "Reason"],
      ["proposed_by", "Proposed by"],
      ["proposed", "Time"],
    ];
    if (decide) {
      columns.push([
        "id",
        "Decision",
        (id) =>
          h(
            "div",
            null,
            reasonForm(
              "Approve void",
              async (reason) => {
                await api.post(`voids/${id}`, { approve: true, reason });
                await load();
              },
              { danger: true },
            ),
            reasonForm("Reject", async (reason) => {
              await api.post(`voids/${id}`, { approve: false, reason });
              await load();
            }),
          ),
      ]);
    }
    fill(view, h("h1", { text: "Voids (two-person rule for real money)" }), panel("Proposed voids", null, table(found.proposals, columns)));
  };
  await load();
}

function limitsForm(row, reload) {
  const names = [
    ["min", "min"],
    ["max", "max"],
    ["tie_min", "tie min"],
    ["tie_min_alone", "tie alone"],
    ["tie_max", "tie max"],
  ];
  const inputs = names.map(([name]) =>
    h("input", { name, type: "number", min: "1", value: String(row.limits[name]), "aria-label": `${row.id} ${name} (cents)` }),
  );
  return reasonForm(
    "Set limits",
    async (reason) => {
      const limits = Object.fromEntries(names.map(([name], i) => [name, Number(inputs[i].value)]));
      await api.put(`tables/${row.id}/limits`, { limits, reason });
      await reload();
    },
    { extra: names.map(([, caption], i) => h("label", { class: "office-limit" }, caption, inputs[i])) },
  );
}

export async function showTables(view, staff) {
  const change = staff.permissions.includes("tables_change");
  const load = async () => {
    const found = await api.get("tables");
    const columns = [
      ["id", "Table"],
      ["rules", "Rules"],
      ["enabled", "State", (on) => h("span", { class: on ? "status-on" : "status-off", text: on ? "open" : "CLOSED" })],
      [
        "limits",
        "Limits",
        (l, row) => `${cents(l.min)} – ${cents(l.max)}, tie ${cents(l.tie_min)} – ${cents(l.tie_max)}${row.changed ? " (changed)" : ""}`,
      ],
    ];
    if (change) {
      const kill = (row) =>
        reasonForm(
          row.enabled ? "Close table" : "Open table",
          async (reason) => {
            await api.put(`tables/${row.id}/switch`, { enabled: !row.enabled, reason });
            await load();
          },
          { danger: row.enabled },
        );
      // The kill switch, and the limits from the next round (the house's tables).
      columns.push([
        (row) => row,
        "Change",
        (row) => h("div", { class: "office-changes" }, kill(row), row.banked ? null : limitsForm(row, load)),
      ]);
    }
    const shown = panel(
      "Tables",
      null,
      table(found.tables, columns, (row) => (row.enabled ? null : "alarm")),
    );
    shown.classList.add("office-tables");
    const note = change
      ? h("p", { class: "muted", text: "Limits in cents (200 is 2.00); a change applies from the table's next round." })
      : null;
    fill(view, h("h1", { text: "Tables" }), note, shown);
  };
  await load();
}

export async function showEvents(view) {
  const kind = h("select", { name: "kind", "aria-label": "Kind" }, h("option", { value: "", text: "every kind" }));
  const since = h("input", { type: "date", name: "since", "aria-label": "Since" });
  const target = h("div");
  const load = async () => {
    const query = new URLSearchParams();
    if (kind.value) query.set("kind", kind.value);
    if (since.value) query.set("since", since.value);
    const [found, software] = await Promise.all([api.get(`events?${query}`), api.get("software")]);
    if (kind.options.length === 1) for (const k of found.kinds) kind.append(h("option", { value: k, text: k }));
    const last = software.last || { details: {} };
    fill(
      target,
      panel(
        "Software",
        null,
        keyValues([
          ["Software id", software.software_id],
          ["Last verification", `${last.details.status || "none"} ${last.time || ""}`],
        ]),
      ),
      panel(
        "Significant events (append-only)",
        null,
        table(found.events, [
          ["time", "Time"],
          ["id", "Id"],
          ["kind", "Kind"],
          ["actor", "Actor"],
          ["subject", "Subject"],
          ["details", "Details", (d) => JSON.stringify(d)],
        ]),
      ),
    );
  };
  const form = h(
    "form",
    { class: "toolbar panel" },
    h("label", null, "Kind", kind),
    h("label", null, "Since", since),
    h("button", { class: "btn", type: "submit", text: "Filter" }),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
  fill(view, h("h1", { text: "Significant events" }), form, target);
  await load();
}
