"""Players and rounds as the back office sees them: find a player by nickname or id, a
player's card (balances, limits, exclusion, sessions, cashier requests, audit logs) and
game recall (the last rounds as they were played: cards in deal order, each bet and its
return, the balance before and after, the fairness data)."""

from __future__ import annotations

from typing import Any

from baccarat.server import auth, ledger, responsible, wallet
from baccarat.server.accounts import get as get_player
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import get_round, iso_time, page
from baccarat.server.office import staff as staffing
from baccarat.server.recall import recalled

RECALL = 10
MAX_FOUND = 50


def find(uow: UnitOfWork, query: str) -> list[dict[str, Any]]:
    """Players whose nickname starts with ``query`` (any case), or whose id it is."""
    text = query.strip()
    if not 1 <= len(text) <= 24:
        raise ServiceError("invalid_request", "search with 1 to 24 characters")
    prefix = text.casefold().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = uow.all(
        "SELECT id, nickname, created_us FROM players WHERE nickname_key LIKE :k ESCAPE '\\' "
        "OR id = :id ORDER BY nickname_key LIMIT :n",
        {"k": prefix + "%", "id": int(text) if text.isdigit() and len(text) < 19 else -1,
         "n": MAX_FOUND},
    )  # fmt: skip
    return [{"id": int(i), "nickname": str(n), "created": iso_time(int(c))} for i, n, c in rows]


def card(uow: UnitOfWork, player_id: int) -> dict[str, Any] | None:
    """A player's card; None when their limits have something to settle first (then
    ``settle`` in a write, as the player's own next read would)."""
    get_player(uow, player_id)  # unknown_player before anything else
    limits = responsible.peek(uow, player_id)
    if limits is None:
        return None
    return _card(uow, player_id, limits)


def settle(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
    get_player(uow, player_id)
    return _card(uow, player_id, responsible.overview(uow, player_id))


def _card(uow: UnitOfWork, player_id: int, limits: dict[str, Any]) -> dict[str, Any]:
    player = get_player(uow, player_id)
    sessions = auth.list_sessions(uow, player_id, None)
    requests = wallet.list_requests(uow, player_id=player_id, limit=20)
    recall, _ = page(uow, player_id, None, RECALL, None)
    return {
        "player": player.to_json() | {"created": iso_time(player.created_us)},
        "balances": wallet.balances(uow, player_id),
        "currency": ledger.currency_of(uow, player_id),  # of the balances and the limits
        "withdrawals_pending": wallet.pending_withdrawals(uow, player_id),
        "responsible": limits,
        "sessions": [
            {"id": s.id, "created": iso_time(s.created_us), "expires": iso_time(s.expires_us)}
            for s in sessions
        ],
        "requests": [r.to_json() for r in requests],
        "responsible_audit": responsible.audit_log(uow, player_id, 20),
        "staff_audit": staffing.audit_log(uow, f"player:{player_id}", 20),
        # Step by step, as the player's own recall shows it (docs/jurisdictions.md).
        "recall": [recalled(r) | {"player_id": player_id} for r in recall],
    }


def round_card(uow: UnitOfWork, round_id: str) -> dict[str, Any]:
    """Any round by id, with its player and any proposal to void it."""
    record = get_round(uow, None, round_id)
    player_id = int(uow.scalar("SELECT player_id FROM rounds WHERE id = :id", {"id": round_id}))
    proposals = [
        {"id": int(i), "reason": r, "proposed_by": p, "proposed": iso_time(int(t)),
         "status": s}
        for i, r, p, t, s in uow.all(
            "SELECT v.id, v.reason, s.name, v.proposed_us, v.status FROM void_proposals v "
            "JOIN staff s ON s.id = v.proposed_by WHERE v.round_id = :id ORDER BY v.id",
            {"id": round_id},
        )
    ]  # fmt: skip
    nickname = uow.scalar("SELECT nickname FROM players WHERE id = :p", {"p": player_id})
    return {"round": record.to_json(), "player": {"id": player_id, "nickname": nickname},
            "currency": ledger.currency_of(uow, player_id),  # of the round's amounts
            "void_proposals": proposals}  # fmt: skip
