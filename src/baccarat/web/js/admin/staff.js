// Staff administration (admins): disable or enable an account, change its role, reset
// its password or second factor, each with a reason (audited); the staff audit log. And
// every member's own password.

import { fill, h } from "../dom.js";
import { t } from "../i18n.js";
import * as api from "./api.js";
import { actor, code, keyValues, named, panel, reasonForm, refusal, table, when } from "./ui.js";

const ROLES = ["viewer", "support", "finance", "admin"];

/** What a reset gives once (a password, a TOTP secret and codes): shown, never stored. */
function showOnce(place, title, pairs) {
  fill(place, h("h3", { text: title }), h("p", { class: "muted", text: t("office.staff.once") }), keyValues(pairs));
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
      { name: "staff" },
      ...accounts.map((s) =>
        h("option", {
          value: s.name,
          selected: s.name === selected,
          text: t(s.disabled ? "office.staff.option_disabled" : "office.staff.option", { name: s.name, role: named("role", s.role) }),
        }),
      ),
    );
    who.addEventListener("change", () => {
      selected = who.value;
      fill(once);
    });
    const path = (what) => `staff/${encodeURIComponent(who.value)}/${what}`;
    const role = h(
      "select",
      { name: "role", "aria-label": t("office.staff.new_role") },
      ...ROLES.map((r) => h("option", { value: r, text: named("role", r) })),
    );
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
      h("label", null, t("office.staff.account"), who),
      change(t("office.staff.set_role"), (reason) => api.put(path("role"), { role: role.value, reason }), { extra: [role] }),
      change(t("office.staff.disable"), (reason) => api.put(path("switch"), { enabled: false, reason }), { danger: true }),
      change(t("office.staff.enable"), (reason) => api.put(path("switch"), { enabled: true, reason })),
      change(t("office.staff.reset_password"), async (reason) => {
        const answer = await api.post(path("password"), { reason });
        showOnce(once, t("office.staff.new_password_of", { name: answer.staff.name }), [
          [t("office.staff.password"), code(answer.password)],
        ]);
      }),
      change(t("office.staff.reset_second_factor"), async (reason) => {
        const answer = await api.post(path("second-factor"), { reason });
        showOnce(once, t("office.staff.new_second_factor_of", { name: answer.staff.name }), [
          [t("office.staff.totp_secret"), code(answer.totp_secret)],
          [t("office.staff.totp_uri"), code(answer.totp_uri)],
          [t("office.staff.recovery_codes"), code(answer.recovery_codes.join(" "))],
        ]);
      }),
    );
    fill(
      view,
      h("h1", { text: t("office.page.staff") }),
      panel(
        t("office.staff.accounts"),
        null,
        table(
          accounts,
          [
            ["name", t("office.col.name")],
            ["id", t("office.col.id")],
            ["role", t("office.col.role"), (r) => named("role", r)],
            ["created", t("office.col.created"), when],
            [
              "disabled",
              t("office.col.state"),
              (d) => h("span", { class: d ? "status-off" : "status-on", text: t(d ? "office.staff.disabled" : "office.staff.active") }),
            ],
          ],
          (row) => (row.disabled ? "muted" : null),
        ),
      ),
      panel(t("office.staff.change"), null, manage, once),
      panel(
        t("office.staff.audit"),
        null,
        table(audit.audit, [
          ["time", t("office.col.time"), when],
          ["staff", t("office.col.staff"), actor],
          ["action", t("office.col.action"), (a) => named("action", a)],
          ["target", t("office.col.target"), code],
          ["reason", t("office.col.reason")],
          ["details", t("office.col.details"), code],
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
    field("current", t("office.account.current"), "current-password"),
    field("new", t("office.account.new"), "new-password"),
    field("again", t("office.account.again"), "new-password"),
    h("button", { type: "submit", class: "btn primary", text: t("office.account.change") }),
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const { current, again } = form.elements;
    const fresh = form.elements.new;
    message.className = "office-error";
    if (fresh.value !== again.value) {
      message.textContent = t("office.account.differ");
      return;
    }
    try {
      await api.put("me/password", { current: current.value, new: fresh.value });
      form.reset();
      message.className = "status-on";
      message.textContent = t("office.account.changed");
    } catch (failure) {
      message.textContent = refusal(failure);
    }
  });
  fill(
    view,
    h("h1", { text: t("office.page.account") }),
    panel(t("office.who", { name: me.name, role: named("role", me.role) }), null, form),
  );
}
