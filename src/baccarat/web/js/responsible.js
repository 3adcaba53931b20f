// Responsible gaming: limits with usage bars, pending changes, the reality-check interval,
// the session, a time-out or self-exclusion behind a confirmation, and where to find help.

import * as api from "./api.js";
import { fill, h } from "./dom.js";
import { errorText } from "./errors.js";
import { loginFirst } from "./gate.js";
import { dateTime, money, parseMoney, signedMoney, t } from "./i18n.js";
import { duration, setStatus } from "./watch.js";

const BASE = "/api/responsible";
const KINDS = ["deposit", "loss", "wager"];
const PERIODS = ["day", "week", "month"];
const TIME_OUTS = [1, 7, 30];
const EXCLUSIONS = [6, 12, 60];

function limitRow(kind, period, state) {
  const limit = state.limits[kind][period];
  const used = Math.max(0, state.usage[period][kind]);
  const id = `limit-${kind}-${period}`;
  return h(
    "div",
    { class: "rg-limit", "data-limit": `${kind}_${period}` },
    h("label", { for: id, text: t(`rg.period_${period}`) }),
    h("input", {
      id,
      inputmode: "decimal",
      autocomplete: "off",
      value: limit === null ? "" : (limit / 100).toFixed(2),
      placeholder: t("rg.no_limit"),
      "data-current": limit === null ? "" : String(limit),
    }),
    h(
      "div",
      { class: "rg-usage" },
      limit === null
        ? null
        : h("progress", {
            max: String(Math.max(limit, 1)),
            value: String(Math.min(used, limit)),
            "aria-label": t("rg.used_of", { used: money(used), limit: money(limit) }),
          }),
      h("span", {
        class: "muted",
        "data-usage": `${kind}_${period}`,
        text: limit === null ? t("rg.used", { used: money(used) }) : t("rg.used_of", { used: money(used), limit: money(limit) }),
      }),
      h("span", { class: "muted small", text: t("rg.resets", { time: dateTime(state.usage[period].resets) }) }),
    ),
  );
}

/** Whether the session limit has ended play (the server's time against its end). */
const sessionEnded = (state) => Boolean(state.session.ends) && Date.parse(state.server_time) >= Date.parse(state.session.ends);

function pendingText(change) {
  const name =
    change.limit === "session_minutes" ? t("rg.session_limit") : `${t(`rg.kind_${change.kind}`)} (${t(`rg.period_${change.period}`)})`;
  const amount =
    change.amount === null
      ? t("rg.no_limit")
      : change.limit === "session_minutes"
        ? t("rg.minutes", { n: change.amount })
        : money(change.amount);
  return t("rg.pending_item", { name, amount, time: dateTime(change.applies) });
}

function confirmDialog(title, text, onConfirm) {
  const dialog = h(
    "dialog",
    { class: "rg-dialog", id: "rg-confirm", "aria-labelledby": "rg-confirm-title" },
    h("h2", { id: "rg-confirm-title", text: title }),
    h("p", { text }),
    h("p", { class: "warning", text: t("rg.cannot_undo") }),
    h(
      "div",
      { class: "row" },
      h("button", {
        class: "btn primary",
        type: "button",
        "data-confirm": "yes",
        text: t("rg.confirm"),
        onclick: async () => {
          dialog.close();
          dialog.remove();
          await onConfirm();
        },
      }),
      h("button", {
        class: "btn",
        type: "button",
        "data-confirm": "no",
        text: t("rg.cancel"),
        onclick: () => {
          dialog.close();
          dialog.remove();
        },
      }),
    ),
  );
  document.body.append(dialog);
  dialog.showModal();
}

/**
 * A break from play (`kind` time_out or self_exclusion): its label, a choice of spans (in
 * `unit`, days or months) and a button that asks again before it sends the span chosen.
 */
function breakChoice(kind, id, unit, spans, send) {
  const action = kind.replace("_", "-");
  const spanText = (n) => t(`rg.${unit}_${n}`);
  const select = h(
    "select",
    { id },
    spans.map((n) => h("option", { value: String(n), text: spanText(n) })),
  );
  return [
    h("label", { for: id, text: t(`rg.${kind}`) }),
    select,
    h("button", {
      class: "btn",
      type: "button",
      "data-action": action,
      text: t(`rg.${kind}_button`),
      onclick: () => {
        const n = Number(select.value);
        confirmDialog(t(`rg.${kind}`), t(`rg.${kind}_confirm`, { span: spanText(n) }), () => send("POST", `/${action}`, { [unit]: n }));
      },
    }),
  ];
}

export async function render(root) {
  const page = h("div", { class: "rg-page" });
  root.append(page);
  if (loginFirst(page)) return null;
  let state = null;
  let note = "";
  let problem = "";

  async function send(method, path, body, done) {
    try {
      state = await api.request(method, `${BASE}${path}`, { body });
      setStatus(state);
      note = done ? done(state) : "";
      problem = "";
    } catch (error) {
      problem = errorText(error);
      note = "";
    }
    draw();
  }

  function saveLimits(event) {
    event.preventDefault();
    const body = {};
    for (const kind of KINDS) {
      for (const period of PERIODS) {
        const input = page.querySelector(`#limit-${kind}-${period}`);
        const text = input.value.trim();
        const value = text === "" ? null : parseMoney(text);
        if (text !== "" && value === null) {
          problem = t("cashier.bad_amount");
          draw();
          return;
        }
        const before = input.dataset.current === "" ? null : Number(input.dataset.current);
        if (value !== before) {
          body[kind] = body[kind] || {};
          body[kind][period] = value;
        }
      }
    }
    const minutes = page.querySelector("#limit-session").value.trim();
    const sessionValue = minutes === "" ? null : Number(minutes);
    if (sessionValue !== state.limits.session_minutes) body.session_minutes = sessionValue;
    send("PUT", "/limits", body, (s) => {
      // A session limit the session has passed already ends play now: say until when.
      if ("session_minutes" in body && sessionEnded(s)) return t("rg.session_ends_now", { resumes: dateTime(s.session.resumes) });
      return s.pending.length ? t("rg.saved_pending") : t("rg.saved");
    });
  }

  function draw() {
    if (!state) {
      fill(page, h("h1", { class: "page-title", text: t("rg.title") }), problem ? h("p", { class: "message", text: problem }) : null);
      return;
    }
    const session = state.session;
    const exclusion = state.exclusion;
    fill(
      page,
      h("h1", { class: "page-title", text: t("rg.title") }),
      h("p", { class: "muted", text: t("rg.intro") }),
      exclusion
        ? h("p", {
            class: "panel rg-excluded",
            "data-exclusion": exclusion.kind,
            text: t(`rg.excluded_${exclusion.kind}`, { time: dateTime(exclusion.until) }),
          })
        : null,
      sessionEnded(state)
        ? h("p", {
            class: "panel rg-excluded",
            "data-session-ended": "",
            text: t("rg.session_ended", { ended: dateTime(session.ends), resumes: dateTime(session.resumes) }),
          })
        : null,
      h("p", { class: "message", role: "status", "data-rg-message": "", text: problem || note }),
      h(
        "form",
        { class: "panel", "data-form": "limits", onsubmit: saveLimits },
        h("h2", { text: t("rg.limits_title") }),
        h("p", { class: "muted", text: t("rg.limits_help") }),
        h(
          "div",
          { class: "rg-kinds" },
          KINDS.map((kind) =>
            h(
              "fieldset",
              { class: "rg-kind" },
              h("legend", { text: t(`rg.kind_${kind}`) }),
              PERIODS.map((period) => limitRow(kind, period, state)),
            ),
          ),
        ),
        h(
          "div",
          { class: "rg-limit rg-session" },
          h("label", { for: "limit-session", text: t("rg.session_limit") }),
          h("input", {
            id: "limit-session",
            type: "number",
            min: "1",
            max: "1440",
            inputmode: "numeric",
            value: state.limits.session_minutes ?? "",
            placeholder: t("rg.no_limit"),
          }),
          h("span", { class: "muted", text: t("rg.minutes_unit") }),
        ),
        state.pending.length
          ? h(
              "div",
              { class: "rg-pending" },
              h("h3", { text: t("rg.pending_title") }),
              h(
                "ul",
                null,
                state.pending.map((c) => h("li", { "data-pending": c.limit, text: pendingText(c) })),
              ),
            )
          : null,
        h("button", { class: "btn primary", type: "submit", "data-action": "save-limits", text: t("rg.save") }),
      ),
      h(
        "div",
        { class: "two" },
        h(
          "form",
          {
            class: "panel",
            "data-form": "reality",
            onsubmit: (e) => {
              e.preventDefault();
              send("PUT", "/reality-check", { minutes: Number(page.querySelector("#reality-minutes").value) }, () => t("rg.saved"));
            },
          },
          h("h2", { text: t("rg.check_title") }),
          h("p", { class: "muted", text: t("rg.check_interval_help") }),
          h("label", { for: "reality-minutes", text: t("rg.check_every") }),
          h("input", {
            id: "reality-minutes",
            type: "number",
            min: "1",
            max: "1440",
            inputmode: "numeric",
            value: String(state.reality_check.minutes),
          }),
          h("button", { class: "btn", type: "submit", "data-action": "save-reality", text: t("rg.save") }),
          h(
            "dl",
            { class: "kvs" },
            h("div", { class: "kv" }, h("dt", { text: t("rg.session_started") }), h("dd", { text: dateTime(session.started) })),
            h("div", { class: "kv" }, h("dt", { text: t("rg.session_played") }), h("dd", { text: duration(session.played_seconds) })),
            h("div", { class: "kv" }, h("dt", { text: t("rg.session_net") }), h("dd", { text: signedMoney(session.net) })),
            h("div", { class: "kv" }, h("dt", { text: t("rg.session_wagered") }), h("dd", { text: money(session.wagered) })),
            session.ends
              ? h(
                  "div",
                  { class: "kv" },
                  h("dt", { text: t("rg.session_ends") }),
                  h("dd", { "data-session-ends": "", text: dateTime(session.ends) }),
                )
              : null,
          ),
        ),
        h(
          "section",
          { class: "panel", "data-form": "break" },
          h("h2", { text: t("rg.break_title") }),
          h("p", { class: "muted", text: t("rg.break_help") }),
          breakChoice("time_out", "time-out-days", "days", TIME_OUTS, send),
          breakChoice("self_exclusion", "exclusion-months", "months", EXCLUSIONS, send),
        ),
      ),
      h(
        "section",
        { class: "panel", "data-help": "" },
        h("h2", { text: t("rg.help_title") }),
        h("p", { class: "muted", text: t("rg.help_text") }),
        h(
          "ul",
          null,
          [1, 2].map((n) =>
            h(
              "li",
              null,
              h("a", { href: t(`rg.help${n}_url`), target: "_blank", rel: "noopener", text: t(`rg.help${n}_name`) }),
              " ",
              h("span", { class: "muted", text: t(`rg.help${n}_what`) }),
            ),
          ),
        ),
      ),
    );
  }

  try {
    state = await api.get(BASE);
    setStatus(state);
  } catch (error) {
    problem = errorText(error);
  }
  draw();
  return { relabel: draw };
}
