"""What anyone sees of a shared table: its state, a coup, its roads, a finished shoe's record.

The same for every caller (a caller's own bets are added where there is one). The totals on
each spot are the sum of the coup's bets, recomputed at most every ``TOTALS_S`` seconds per
table and mode (a crowd's reads never sum a thousand bettors each).
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from baccarat.core import Bets, Outcome
from baccarat.fairness.history import FORMAT, FairnessRecord, RoundRecord
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import _hand as hand_record
from baccarat.server.history import iso_time
from baccarat.server.kinds.shared import tablelog
from baccarat.server.kinds.shared.bank import CUT, NONCE
from baccarat.server.kinds.shared.clock import (
    SHOE_COLUMNS,
    CoupRow,
    ShoeRow,
    clock_of,
    coup_cards,
    load_coup,
    require_shared,
    shoe_json,
)
from baccarat.server.ledger import check_mode
from baccarat.server.roads import road_result, roads_json
from baccarat.server.tables import Table

TOTALS_S = 0.25
_totals: dict[tuple[str, int, str], tuple[float, dict[str, Any]]] = {}
_totals_lock = threading.Lock()


def totals(
    uow: UnitOfWork, table: Table, coup_id: int, mode: str, *, fresh: bool = False
) -> dict[str, Any]:
    """``{"players", "totals": {spot: {"players", "amount"}}}`` of the coup in a mode
    (``fresh``: summed now, not taken from the cache: the feed, told the bets changed)."""
    key = (table.id, coup_id, mode)
    with _totals_lock:
        cached = _totals.get(key)
    if cached is not None and cached[0] > time.monotonic() and not fresh:
        return cached[1]
    spots = no_totals(table)
    players = 0
    for (text,) in uow.all(
        "SELECT bets FROM shared_bets WHERE coup_id = :c AND mode = :m AND stake > 0",
        {"c": coup_id, "m": mode},
    ):
        players += 1
        for bet, stake in json.loads(text).items():
            spot = spots.setdefault(bet, {"players": 0, "amount": 0})
            spot["players"] += 1
            spot["amount"] += int(stake)
    answer: dict[str, Any] = {"players": players, "totals": spots}
    with _totals_lock:
        if len(_totals) > 1024:
            _totals.clear()
        _totals[key] = (time.monotonic() + TOTALS_S, answer)
    return answer


def no_totals(table: Table) -> dict[str, dict[str, int]]:
    """The totals on each spot of a coup nobody bet on."""
    return {bet: {"players": 0, "amount": 0} for bet in table.bets}


def phase(coup: CoupRow | None, watched: int, now: int) -> str:
    if coup is None:
        return "idle"
    if coup.dealt_us is None:
        return coup.phase(now)
    assert coup.next_us is not None
    return "idle" if now >= coup.next_us and watched <= now else "dealt"


def state(uow: UnitOfWork, table: Table, player_id: int | None, mode: str) -> dict[str, Any]:
    """The answer of ``GET /api/tables/{id}/state`` at a shared table."""
    check_mode(mode)
    require_shared(table)
    shoe, coup, watched = clock_of(uow, table)
    answer: dict[str, Any] = {
        "table_id": table.id,
        "shared": True,
        "mode": mode,
        "phase": phase(coup, watched, uow.now),
        "coup": None if coup is None else coup.id,
        "number": None if coup is None else coup.number,
        "closes_at": None if coup is None else coup.closes_us,
        "next_at": None if coup is None else coup.next_us,
        "server_time": uow.now,
        "players": 0,
        "totals": {},
        "shoe": None if shoe is None else shoe_json(shoe),
        "result": None if coup is None else coup_cards(coup),
        "last_results": last_results(uow, table),
        "log": tablelog.head(uow, table.id),
    }
    if coup is not None:
        answer |= totals(uow, table, coup.id, mode)
    if player_id is not None:  # the caller's own bets on the coup (none before the first)
        mine = {} if coup is None else own_bets(uow, coup.id, mode, [player_id])
        answer["you"] = mine.get(player_id) or no_bets()
    return answer


def no_bets() -> dict[str, Any]:
    """The ``you`` of a player who has no bets on the coup."""
    return {"bets": {}, "stake": 0, "fee": 0, "round_id": None, "returned": None}


def own_bets(
    uow: UnitOfWork, coup_id: int, mode: str, player_ids: list[int]
) -> dict[int, dict[str, Any]]:
    """Each of these players' own bets on the coup in a mode (the players who placed some):
    ``{"bets", "stake", "fee", "round_id", "returned"}`` (``fee``: a multiplier table's,
    taken with the stake), the round and what it returned once the coup is settled (None
    before). A page that opens during the result shows the player's
    own result from it, as the socket's ``settled`` told it."""
    found: dict[int, dict[str, Any]] = {}
    for start in range(0, len(player_ids), 500):
        chunk = player_ids[start : start + 500]
        names = ", ".join(f":p{i}" for i in range(len(chunk)))
        for player, bets, stake, fee, round_id, returned in uow.all(
            "SELECT b.player_id, b.bets, b.stake, b.fee, b.round_id, r.win FROM shared_bets b "
            "LEFT JOIN rounds r ON r.id = b.round_id WHERE b.coup_id = :c AND b.mode = :m "
            f"AND b.player_id IN ({names})",
            {"c": coup_id, "m": mode, **{f"p{i}": p for i, p in enumerate(chunk)}},
        ):
            found[int(player)] = {
                "bets": dict(Bets(json.loads(bets)).placed()), "stake": int(stake),
                "fee": int(fee), "round_id": round_id,
                "returned": None if returned is None else int(returned),
            }  # fmt: skip
    return found


def last_results(uow: UnitOfWork, table: Table, count: int = 10) -> list[str]:
    """The winners of the table's last dealt coups, newest first (the lobby shows them)."""
    rows = uow.all(
        "SELECT winner FROM shared_coups WHERE table_id = :t AND winner IS NOT NULL "
        "ORDER BY id DESC LIMIT :n",
        {"t": table.id, "n": count},
    )
    return [str(w) for (w,) in rows]


def coup_view(uow: UnitOfWork, table: Table, coup_id: int, player_id: int | None) -> dict[str, Any]:
    """``GET /api/tables/{id}/coups/{coup}``: the coup's cards once dealt, and the caller's
    bets on it in each mode, with what they returned once settled."""
    require_shared(table)
    coup = load_coup(uow, table, coup_id)
    shoe = uow.one(f"SELECT {SHOE_COLUMNS} FROM shared_shoes WHERE id = :id", {"id": coup.shoe_id})
    assert shoe is not None
    answer: dict[str, Any] = {
        "table_id": table.id,
        "coup": coup.id,
        "number": coup.number,
        "phase": coup.phase(uow.now),
        "opens_at": coup.opens_us,
        "closes_at": coup.closes_us,
        "dealt_at": coup.dealt_us,
        "server_time": uow.now,
        "result": coup_cards(coup),
        "void_reason": coup.void_reason,
        "shoe": shoe_json(ShoeRow(*shoe)),
        "bets": {},
    }
    if player_id is not None:
        for mode, bets, stake, fee, round_id, returned in uow.all(
            "SELECT b.mode, b.bets, b.stake, b.fee, b.round_id, r.win FROM shared_bets b "
            "LEFT JOIN rounds r ON r.id = b.round_id WHERE b.coup_id = :c AND b.player_id = :p",
            {"c": coup.id, "p": player_id},
        ):
            answer["bets"][mode] = {
                "bets": json.loads(bets), "stake": int(stake), "fee": int(fee),
                "round_id": round_id, "returned": None if returned is None else int(returned),
            }  # fmt: skip
    return answer


def table_roads(uow: UnitOfWork, table: Table, mode: str) -> dict[str, Any]:
    """The table's roads for its current shoe: the same for every caller."""
    check_mode(mode)
    require_shared(table)
    shoe, _, _ = clock_of(uow, table)
    rows = [] if shoe is None else uow.all(
        "SELECT winner, player_cards, banker_cards FROM shared_coups WHERE shoe_id = :s "
        "AND winner IS NOT NULL AND void_reason IS NULL ORDER BY number",
        {"s": shoe.id},
    )  # fmt: skip
    return roads_json(table, mode, [road_result(w, pc, bc) for w, pc, bc in rows]) | {
        "shoe": None if shoe is None else shoe.id
    }


def shoe_record(uow: UnitOfWork, table: Table, shoe_id: int) -> list[dict[str, Any]]:
    """A shoe's coups as lines of ``baccarat-history/1`` (no bets: the table's deal), its
    seed filled in once it ended: what ``baccarat verify`` checks, coup by coup and for the
    contiguity of the shoe from the end of its burn."""
    require_shared(table)
    row = uow.one(
        f"SELECT {SHOE_COLUMNS} FROM shared_shoes WHERE id = :id AND table_id = :t",
        {"id": shoe_id, "t": table.id},
    )
    if row is None:
        raise ServiceError(
            "unknown_shoe", f"table {table.id} has no shoe {shoe_id}", table=table.id, shoe=shoe_id
        )
    shoe = ShoeRow(*row)
    # A shoe dealt before the tables kept their log (migration 0017) has none.
    log = tuple(tablelog.of_shoe(uow, shoe.id)) or None
    lines = []
    for number, dealt_us, position, pc, bc, winner in uow.all(
        "SELECT number, dealt_us, position, player_cards, banker_cards, winner FROM shared_coups "
        "WHERE shoe_id = :s AND dealt_us IS NOT NULL ORDER BY number",
        {"s": shoe.id},
    ):
        record = RoundRecord(
            line=0,
            id=f"{table.id}/shoe-{shoe.id}/coup-{number}",
            rules=table.rules,
            rules_name=table.rules.name,
            fairness=FairnessRecord(
                shoe.revealed,
                shoe.commitment,
                shoe.client_seed,
                NONCE,
                CUT,
                int(position),
                None,
                None,
            ),
            player=hand_record(pc),
            banker=hand_record(bc),
            winner=Outcome(winner),
            bets=(),
            win=0,
            balance_before=0,
            balance_after=0,
            void_reason=None,
            table_id=table.id,
            time=iso_time(int(dealt_us)),
            table_log=log,
        )
        lines.append(record.to_json())
    assert all(line["format"] == FORMAT for line in lines)
    return lines
