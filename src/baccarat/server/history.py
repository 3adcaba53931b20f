"""Rounds as records and as JSON: the API's answer, the history pages and the export.

The export is ``baccarat-history/1`` (docs/history-format.md), one JSON object per line,
oldest first, with the server seed filled in once the player has rotated (revealed) it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..fairness.history import FORMAT, FairnessRecord
from .db.uow import UnitOfWork
from .errors import ServiceError


def iso_time(us: int) -> str:
    return datetime.fromtimestamp(us // 1_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# Baccarat points by rank letter (the first character of a card's text, e.g. "Td").
_POINTS = {rank: min(i + 1, 10) % 10 for i, rank in enumerate("A23456789TJQK")}


def _hand(cards_text: str) -> dict[str, Any]:
    """A recorded hand as the API shows it: its cards and its ``[x, y]`` scores."""
    cards = cards_text.split()
    points = [_POINTS[card[0]] for card in cards]
    return {"cards": cards, "scores": [(points[0] + points[1]) % 10, sum(points) % 10]}


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A row of ``rounds``, as stored."""

    seq: int
    id: str
    table_id: str
    mode: str
    created_us: int
    rules: str
    commitment: str
    client_seed: str
    nonce: int
    cut: int | None
    position: int
    player_cards: str
    banker_cards: str
    winner: str
    bets: str  # JSON: {"player": {"stake", "result", "returned"}, ...}
    stake: int
    win: int
    balance_before: int
    balance_after: int
    void_reason: str | None
    server_seed: str | None  # only once revealed

    def settled_bets(self) -> dict[str, dict[str, Any]]:
        bets: dict[str, dict[str, Any]] = json.loads(self.bets)
        if self.void_reason is None:
            return bets
        # A voided round returns every stake.
        return {
            kind: {"stake": bet["stake"], "result": "void", "returned": bet["stake"]}
            for kind, bet in bets.items()
        }

    def to_json(self) -> dict[str, Any]:
        """The API's round: what the issue's API shape lists, plus its context."""
        void = self.void_reason is not None
        return {
            "id": self.id,
            "table_id": self.table_id,
            "mode": self.mode,
            "time": iso_time(self.created_us),
            "rules": self.rules,
            "player": _hand(self.player_cards),
            "banker": _hand(self.banker_cards),
            "winner": self.winner,
            "bets": self.settled_bets(),
            "stake": self.stake,
            "win": self.stake if void else self.win,
            "balance_before": self.balance_before,
            "balance_after": self.balance_before if void else self.balance_after,
            "void_reason": self.void_reason,
            "fairness": self.fairness(),
        }

    def fairness(self) -> dict[str, Any]:
        return FairnessRecord(
            self.server_seed, self.commitment, self.client_seed, self.nonce, self.cut, self.position
        ).to_json()

    def export_json(self) -> dict[str, Any]:
        """One line of ``baccarat-history/1``, exactly as docs/history-format.md says."""
        line = self.to_json()
        del line["stake"]  # the export derives the stake from its bets
        return {"format": FORMAT, **line}


SELECT_ROUNDS = (
    "SELECT r.seq, r.id, r.table_id, r.mode, r.created_us, r.rules, r.commitment, "
    "r.client_seed, r.nonce, r.cut, r.position, r.player_cards, r.banker_cards, r.winner, "
    "r.bets, r.stake, r.win, r.balance_before, r.balance_after, r.void_reason, "
    "CASE WHEN s.revealed_us IS NULL THEN NULL ELSE s.server_seed END "
    "FROM rounds r JOIN fairness_seeds s ON s.id = r.seed_id "
)


def record(row: tuple[Any, ...]) -> RoundRecord:
    return RoundRecord(*row)


def get_round(uow: UnitOfWork, player_id: int | None, round_id: str) -> RoundRecord:
    """A round by id; with a player id, only among that player's rounds."""
    if player_id is None:
        row = uow.one(SELECT_ROUNDS + "WHERE r.id = :id", {"id": round_id})
    else:
        row = uow.one(
            SELECT_ROUNDS + "WHERE r.id = :id AND r.player_id = :p",
            {"id": round_id, "p": player_id},
        )
    if row is None:
        raise ServiceError("unknown_round", f"there is no round {round_id!r}", round=round_id)
    return record(row)


def page(
    uow: UnitOfWork, player_id: int, mode: str | None, limit: int, before: str | None
) -> tuple[list[RoundRecord], str | None]:
    """Newest first; ``before`` is the id of the last round of the previous page."""
    conditions = ["r.player_id = :p"]
    params: dict[str, Any] = {"p": player_id, "limit": limit + 1}
    if mode is not None:
        conditions.append("r.mode = :m")
        params["m"] = mode
    if before is not None:
        seq = uow.scalar(
            "SELECT seq FROM rounds WHERE id = :id AND player_id = :p",
            {"id": before, "p": player_id},
        )
        if seq is None:
            raise ServiceError("invalid_cursor", f"{before!r} is not one of your rounds")
        conditions.append("r.seq < :before")
        params["before"] = int(seq)
    rows = uow.all(
        SELECT_ROUNDS + "WHERE " + " AND ".join(conditions) + " ORDER BY r.seq DESC LIMIT :limit",
        params,
    )
    records = [record(row) for row in rows[:limit]]
    return records, (records[-1].id if len(rows) > limit and records else None)


EXPORT_PAGE = 500


def export_page(
    uow: UnitOfWork, player_id: int, mode: str | None, after_seq: int
) -> list[RoundRecord]:
    """Up to EXPORT_PAGE rounds after ``after_seq``, oldest first."""
    mode_condition = "" if mode is None else "AND r.mode = :m "
    rows = uow.all(
        SELECT_ROUNDS + f"WHERE r.player_id = :p {mode_condition}AND r.seq > :after "
        "ORDER BY r.seq LIMIT :limit",
        {"p": player_id, "m": mode, "after": after_seq, "limit": EXPORT_PAGE},
    )
    return [record(row) for row in rows]


def export_lines(records: list[RoundRecord]) -> Iterator[str]:
    for rec in records:
        yield json.dumps(rec.export_json(), separators=(",", ":")) + "\n"
