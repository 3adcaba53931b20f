// Staff administration (admins): disable or enable an account, change its role, reset
// its password or second factor, each with a reason (audited); the staff audit log. And
// every member's own password.

import { fill, h } from "../dom.js";
import * as api from "./api.js";
import { keyValues, panel, reasonForm, table } from "./ui.js";

const ROLES = ["viewer", "support", "finance", "admin"];

/** What a reset gives once (a password, a TOTP secret and codes): shown, never stored. */
function showOnce(place, title, pairs) {
  fill(
    place,
    h("h3", { text: title }),
    h("p", { class: "muted", text: "Shown once: hand it on now, then leave this page." }),
    keyValues(pairs),
  );
}

export async function showStaff(view) {
  const once = h("div", { class: "office-once", "aria-live": "polite" });
  let selected = null;
  const load = async () => {
    const [found, audit] = await Promise.all([api.get("staff"), api.get("audit")]);
    const accounts = found.staff;
    if (!accounts.some((s) => s.name === selected)) selected = accounts.length ? accounts[0].name : null;
    const who = h(
      "select",
      { name: "staff", "aria-label": "Staff account" },
      ...accounts.map((s) =>
        h("option", { value: s.name, selected: s.name === selected, text: `${s.name} (${s.role}${s.disabled ? ", disabled" : ""})` }),
      ),
    );
    who.addEventListener("change", () => {
      selected = who.value;
      fill(once);
    });
    const path = (what) => `staff/${encodeURIComponent(who.value)}/${what}`;
    const role = h("select", { name: "role", "aria-label": "New role" }, ...ROLES.map((r) => h("option", { value: r, text: r })));
    const change = (label, act, options) =>
      reasonForm(
        label,
        async (reason) => {
          fill(once);
          await act(reason);
          await load();
        },
        options,
      );
    const manage = h(
      "div",
      { class: "office-manage" },
      h("label", null, "Account", who),
      change("Set role", (reason) => api.put(path("role"), { role: role.value, reason }), { extra: [role] }),
      change("Disable", (reason) => api.put(path("switch"), { enabled: false, reason }), { danger: true }),
      change("Enable", (reason) => api.put(path("switch"), { enabled: true, reason })),
      change("Reset password", async (reason) => {
        const answer = await api.post(path("password"), { reason });
        showOnce(once, `New password of ${answer.staff.name} (their sessions ended)`, [["Password", answer.password]]);
      }),
      change("Reset second factor", async (reason) => {
        const answer = await api.post(path("second-factor"), { reason });
        showOnce(once, `New second factor of ${answer.staff.name} (their sessions ended)`, [
          ["TOTP secret", answer.totp_secret],
          ["Authenticator URI", answer.totp_uri],
          ["Recovery codes", answer.recovery_codes.join(" ")],
        ]);
      }),
    );
    fill(
      view,
      h("h1", { text: "Staff" }),
      panel(
        "Staff accounts",
        null,
        table(
          accounts,
          [
            ["name", "Name"],
            ["id", "Id"],
            ["role", "Role"],
            ["created", "Created"],
            ["disabled", "State", (d) => h("span", { class: d ? "status-off" : "status-on", text: d ? "disabled" : "active" })],
          ],
          (row) => (row.disabled ? "muted" : null),
        ),
      ),
      panel("Change an account (each change needs a reason and is audited)", null, manage, once),
      panel(
        "Staff audit log (append-only)",
        null,
        table(audit.audit, [
          ["time", "Time"],
          ["staff", "Staff"],
          ["action", "Action"],
          ["target", "Target"],
          ["reason", "Reason"],
          ["details", "Details", (d) => JSON.stringify(d)],
        ]),
      ),
    );
  };
  await load();
}

export async function showAccount(view, me) {
  const field = (name, label, autocomplete) =>
    h("label", null, label, h("input", { name, type: "password", autocomplete, required: true, maxlength: "256" }));
  const message = h("p", { role: "status" });
  const form = h(
    "form",
    { class: "office-password" },
    h("input", { name: "username", autocomplete: "username", value: me.name, hidden: true }),
    field("current", "Current password", "current-password"),
    field("new", "New password (10 or more characters)", "new-password"),
    field("again", "New password again", "new-password"),
    h("button", { type: "submit", class: "btn primary", text: "Change password" }),
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const { current, again } = form.elements;
    const fresh = form.elements.new;
    message.className = "office-error";
    if (fresh.value !== again.value) {
      message.textContent = "The two new passwords differ.";
      return;
    }
    try {
      await api.put("me/password", { current: current.value, new: fresh.value });
      form.reset();
      message.className = "status-on";
      message.textContent = "Password changed: your other sessions have ended.";
    } catch (failure) {
      message.textContent = failure.message;
    }
  });
  fill(view, h("h1", { text: "My account" }), panel(`${me.name} (${me.role})`, null, form));
}
