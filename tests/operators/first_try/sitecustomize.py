"""Loaded at start by a game server a test runs with this folder first on its PYTHONPATH
(``support.game_server(first_try_fails=...)``): the first unit of work that places the
bets of each operator's player named in ``TEST_FIRST_TRY_FAILS`` (a house round, or bets
on a shared coup) fails after it has returned, with its writes: a statement sent with them raises
PostgreSQL's serialization failure, as a lock not had in time does on a real write. The
writer rolls that try back and runs the unit again in its next batch (``pgwriter.py``), so
a test sees what the game sends the operator's wallet after a second try: the calls of the
try committed, never those of the try rolled back."""

from __future__ import annotations

import os
import sys
from typing import Any

from baccarat.server.kinds.house import service as rounds
from baccarat.server.wallets.operator import shared as elsewhere

PLAYERS = set(os.environ.get("TEST_FIRST_TRY_FAILS", "").split(","))
_failed: set[tuple[str, str]] = set()


FAIL = (
    "DO $$ BEGIN RAISE EXCEPTION 'the first try (a fault of the test)' "
    "USING ERRCODE = 'serialization_failure'; END $$"
)


def _once(uow: Any, kind: str, player: str) -> None:
    if player in PLAYERS and (kind, player) not in _failed:
        _failed.add((kind, player))
        print(f"first try failed: {kind} of {player}", file=sys.stderr, flush=True)
        uow.send(FAIL)  # with the unit's writes, after ``work`` has returned


def _wrap_place(real: Any) -> Any:
    def place(uow: Any, session: Any, *args: Any, **kwargs: Any) -> Any:
        answer = real(uow, session, *args, **kwargs)
        _once(uow, "placement", session.external_player)
        return answer

    return place


def _wrap_round(real: Any) -> Any:
    def play_round(uow: Any, dealer: Any, *args: Any, **kwargs: Any) -> Any:
        played = real(uow, dealer, *args, **kwargs)
        session = getattr(dealer.wallet, "session", None)
        if session is not None:
            _once(uow, "round", session.external_player)
        return played

    return play_round


elsewhere.place = _wrap_place(elsewhere.place)
rounds.play_round = _wrap_round(rounds.play_round)
