// The lobby's player-banked tables (seed 000 "Spielen als Geber"): each table's seats,
// which need a player or a banker, who sits there with their points, and the player's own
// points; live through the lobby socket (/api/seats/ws).

import * as api from "./api.js";
import { fill, h, loadStyles } from "./dom.js";
import { errorText } from "./errors.js";
import { money, number, t } from "./i18n.js";
import { describeRules, limitsText, tableName } from "./rulesinfo.js";
import * as store from "./state.js";

function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

export function percentText(terms) {
  return number(Number(terms.fee_percent ?? 1.5));
}

export const ensureStyles = () => loadStyles("seat");

export class BankedLobby {
  constructor(tables) {
    ensureStyles();
    this.all = tables; // the lobby's, read again while it shows (a table closed, new limits)
    this.seats = new Map();
    this.me = null;
    this.message = "";
    this.el = h("section", { class: "banked-lobby", "aria-labelledby": "banked-title" });
    this.socket = null;
    this.closed = false;
  }

  get tables() {
    return this.all.filter((tbl) => tbl.banked);
  }

  async start() {
    await this.load();
    this.listen();
    this.draw();
    return this;
  }

  async load() {
    try {
      const data = await api.get("/api/seats");
      for (const seat of data.seats) this.seats.set(seat.id, seat);
      this.me = data.me;
    } catch (error) {
      this.message = errorText(error);
    }
  }

  listen() {
    // The lobby's socket needs a login (the list above is shown either way).
    if (this.closed || !this.me || typeof WebSocket === "undefined") return;
    const socket = new WebSocket(socketUrl("/api/seats/ws"));
    this.socket = socket;
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "seat") {
        const old = this.seats.get(message.seat.id);
        if (!old || old.version <= message.seat.version) this.seats.set(message.seat.id, message.seat);
        this.draw();
      }
    };
    socket.onclose = (event) => {
      // 4401: the session ended; 4429: too many sockets: retrying would not help.
      if (!this.closed && event.code !== 4401 && event.code !== 4429) {
        setTimeout(() => this.listen(), 3000);
      }
    };
  }

  destroy() {
    this.closed = true;
    if (this.socket) this.socket.close();
  }

  async join(tbl, role, seatId) {
    this.message = "";
    try {
      const body = { table_id: tbl.id, role, mode: store.state.mode };
      if (seatId) body.seat_id = seatId;
      const out = await api.post("/api/seats", body);
      location.hash = `#/seat/${encodeURIComponent(out.seat.id)}`;
    } catch (error) {
      this.message = errorText(error);
      this.draw();
    }
  }

  person(who, need) {
    if (!who) return h("span", { class: "needs", text: t(need) });
    return h("span", { class: "who" }, h("strong", { text: who.nickname }), ` · ${t("banked.points")} ${number(who.points)}`);
  }

  seatRow(tbl, seat) {
    const mode = store.state.mode;
    const fits = seat.mode == null || seat.mode === mode;
    const mine = this.me && this.me.seats.find((s) => s.seat === seat.id);
    const button = (role) =>
      seat.needs.includes(role) && fits && !mine
        ? h("button", {
            class: "btn small",
            "data-join": role,
            "data-seat": seat.id,
            text: t(role === "player" ? "banked.play" : "banked.bank"),
            "aria-label": t(role === "player" ? "banked.play_here" : "banked.bank_here", { n: seat.number }),
            onclick: () => this.join(tbl, role, seat.id),
          })
        : null;
    return h(
      "li",
      { class: "seat-row", "data-seat-row": seat.id, "data-needs": seat.needs.join(" ") || "none" },
      h("span", { class: "seat-name", text: t("banked.seat", { n: seat.number }) }),
      seat.mode
        ? h("span", { class: `badge ${seat.mode}`, text: t(`mode.${seat.mode}`) })
        : h("span", { class: "badge", text: t("banked.free") }),
      h(
        "span",
        { class: "seat-side" },
        h("small", { text: t("banked.as_player") }),
        this.person(seat.player, "banked.needs_player"),
        button("player"),
      ),
      h(
        "span",
        { class: "seat-side" },
        h("small", { text: t("banked.as_banker") }),
        this.person(seat.banker, "banked.needs_banker"),
        button("banker"),
      ),
      mine ? h("a", { class: "btn small primary", href: `#/seat/${encodeURIComponent(seat.id)}`, text: t("banked.return") }) : null,
    );
  }

  tableCard(tbl) {
    const terms = tbl.banked;
    const seats = [...this.seats.values()].filter((s) => s.table_id === tbl.id).sort((a, b) => a.number - b.number);
    return h(
      "article",
      { class: "banked-card", "data-banked-table": tbl.id, "data-open": String(tbl.open !== false) },
      h("h3", { text: tableName(tbl) }),
      h("p", { class: "summary", text: describeRules(tbl) }),
      h("p", { class: "limits" }, h("strong", { text: t("lobby.limits") }), " ", limitsText(tbl.limits)),
      h("p", {
        class: "requirements",
        text: t("banked.requirements", { points: number(terms.min_points), balance: money(terms.min_banker_balance) }),
      }),
      // Closed by the casino for now: no new seat (the seated may still leave theirs).
      tbl.open === false ? h("p", { class: "closed-note", "data-closed": "", text: t("lobby.closed") }) : null,
      h(
        "div",
        { class: "row", hidden: tbl.open === false },
        h("button", {
          class: "btn primary",
          "data-join-table": `${tbl.id}:player`,
          text: t("banked.play"),
          onclick: () => this.join(tbl, "player"),
        }),
        h("button", {
          class: "btn",
          "data-join-table": `${tbl.id}:banker`,
          text: t("banked.bank"),
          onclick: () => this.join(tbl, "banker"),
        }),
      ),
      h(
        "ul",
        { class: "seat-list" },
        seats.map((seat) => this.seatRow(tbl, seat)),
      ),
    );
  }

  draw() {
    if (!this.tables.length) {
      fill(this.el);
      return this.el;
    }
    const terms = this.tables[0].banked;
    const points = this.me ? (this.me.points[store.state.mode] ?? 0) : null;
    fill(
      this.el,
      h("h2", { id: "banked-title", class: "section-title", text: t("banked.title") }),
      h("p", { class: "muted", text: t("banked.intro", { percent: percentText(terms) }) }),
      points == null
        ? null
        : h("p", { class: "my-points", "data-my-points": points, text: t("banked.your_points", { points: number(points) }) }),
      h("p", { class: "muted small", text: t("banked.points_help") }),
      this.message ? h("p", { class: "message", role: "alert", text: this.message }) : null,
      h(
        "div",
        { class: "banked-tables" },
        this.tables.map((tbl) => this.tableCard(tbl)),
      ),
    );
    return this.el;
  }
}
