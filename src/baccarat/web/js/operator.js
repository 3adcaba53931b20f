// A message of the casino that launched the game (docs/operator-api.md, "Messages"): a
// reality check of its own, attached to its wallet's answers. The server passes it on with
// every answer of play (`operator_message`, and in a refusal's details) until the player
// chooses: the page shows it in a dialog with the choices it offers and sends the choice
// back (POST /api/operator/messages/{id}); "close" leads to the casino's lobby, "view
// history" to the casino's history of the player (or ours).

import * as api from "./api.js";
import { h, webAddress } from "./dom.js";
import { t } from "./i18n.js";
import * as store from "./state.js";

let dialog = null;
const answered = new Set();

function closeDialog() {
  if (dialog) {
    dialog.close();
    dialog.remove();
    dialog = null;
  }
}

/** Where a choice leads once the server has it. */
function follow(choice, message) {
  const operator = store.state.operator;
  if (choice === "close") {
    const lobby = operator && operator.lobby_url ? webAddress(operator.lobby_url) : null;
    if (lobby) location.href = lobby;
    else location.hash = "#/";
  } else if (choice === "view_history") {
    const theirs = message.history_url ? webAddress(message.history_url) : null;
    if (theirs) location.href = theirs;
    else location.hash = "#/history";
  }
}

function show(message) {
  if (!message || answered.has(message.id) || (dialog && dialog.dataset.message === String(message.id))) return;
  closeDialog();
  const status = h("p", { class: "message", role: "status" });
  const choose = async (choice) => {
    try {
      await api.post(`/api/operator/messages/${encodeURIComponent(message.id)}`, { choice });
    } catch (error) {
      if (error.code !== "unknown_message") {
        status.textContent = error.message || error.code;
        return;
      }
    }
    answered.add(message.id);
    closeDialog();
    follow(choice, message);
  };
  dialog = h(
    "dialog",
    {
      class: "rg-dialog",
      id: "operator-message",
      "data-app": "",
      "data-message": String(message.id),
      "aria-labelledby": "operator-message-title",
      "aria-describedby": "operator-message-text",
    },
    h("h2", { id: "operator-message-title", text: t("operator.message_title") }),
    // The casino's own words, in the language it chose.
    h("p", { id: "operator-message-text", text: message.text }),
    status,
    h(
      "div",
      { class: "row" },
      (message.choices || ["continue"]).map((choice, i) =>
        h("button", {
          class: i === 0 ? "btn primary" : "btn",
          type: "button",
          "data-choice": choice,
          text: t(`operator.choice_${choice}`),
          onclick: () => choose(choice),
        }),
      ),
    ),
  );
  // A choice is asked for: Esc does not put it away.
  dialog.addEventListener("cancel", (event) => event.preventDefault());
  document.body.append(dialog);
  dialog.showModal();
}

/** Show the casino's message whenever an answer of the server carries one; in an operator's
 * session, ask once when the page opens for one that came with an answer the page did not
 * see (another tab's, or a win the operator answered after the round was shown). */
export function start() {
  api.onAnswer((data) => data && show(data.operator_message));
  api.onRefusal((error) => show(error.details && error.details.operator_message));
  if (store.state.operator && store.state.operator.mode === "real") api.get("/api/operator/session").catch(() => {});
}
