"""The back office's view of the rounds on operators' wallets still to finish, and of every
call of one: what ``baccarat admin operators`` shows, for staff in the browser."""

from __future__ import annotations

import json

import pytest

from baccarat.cli import main
from baccarat.core import Bets
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.kinds.house import service as rounds
from baccarat.server.play.round import Dealer
from baccarat.server.settings import DatabaseUrl
from baccarat.server.wallets.operator import outbox
from baccarat.server.wallets.operator.outbox import Answer, Call, OperatorWallet

from ..harness import Api
from .office import logged_in
from .support import BANKER_WINS, StackedShoes, operator_session

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("database_url", ["sqlite"],
                                                         indirect=True)]  # fmt: skip


TIMED_OUT = Answer("RS_ERROR_UNKNOWN", error="timeout")


async def operator_round(api: Api, answer: Answer = TIMED_OUT) -> Call:
    """A round on the operator's wallet in yen whose bet was answered so (by default it
    went unanswered: a timeout)."""
    casino = api.casino
    session = await operator_session(api, "JPY")
    table = casino.tables["table-i"].for_currency("JPY")
    bets = Bets({"banker": 1000})

    def work(uow: UnitOfWork) -> Call:
        wallet = OperatorWallet(session, table.id, bets.to_json(), 5)
        rounds.play_round(uow, Dealer(casino.shoes, wallet),
                          session.player_id, table, "real", bets)  # fmt: skip
        assert wallet.first is not None
        return wallet.first

    bet = await casino.db.write(work)
    await casino.db.write(lambda uow: outbox.answered(uow, bet, answer, 1))
    return bet


async def test_staff_see_the_unfinished_rounds_on_operators_wallets_and_their_calls(
    api: Api,
) -> None:
    bet = await operator_round(api)
    viewer = await logged_in(api, "vera", "viewer")
    listed = await api.client.get("/admin/api/operators/rounds", headers=viewer.headers)
    assert listed.status_code == 200, listed.text
    (row,) = listed.json()["operator_rounds"]
    assert (row["round"], row["state"], row["currency"], row["stake"]) == (
        bet.round_id, "rollback", "JPY", 1000)  # fmt: skip
    calls = await api.client.get(f"/admin/api/operators/rounds/{bet.round_id}/calls",
                                 headers=viewer.headers)  # fmt: skip
    assert [(c["call"], c["status"], c["error"]) for c in calls.json()["operator_calls"]] == [
        ("bet", "RS_ERROR_UNKNOWN", "timeout"), ("rollback", None, None)]  # fmt: skip
    csv = await api.client.get("/admin/api/operators/rounds?format=csv", headers=viewer.headers)
    assert bet.round_id in csv.text
    anonymous = await api.client.get("/admin/api/operators/rounds")
    assert anonymous.status_code == 401


async def test_the_admin_command_shows_no_win_for_a_round_that_paid_none(
    api: Api, database_url: DatabaseUrl, capsys: pytest.CaptureFixture[str]
) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)  # the banker bet's settlement returns 1950
    refused = await operator_round(api, Answer("RS_ERROR_NOT_ENOUGH_MONEY", 0, 200))
    played = await operator_round(api, Answer("RS_OK", 5000, 200))
    assert main(["admin", "--database", str(database_url), "operators", "rounds", "--json"]) == 0
    wins = {r["round"]: (r["state"], r["win"]) for r in json.loads(capsys.readouterr().out)}
    assert wins == {refused.round_id: ("refused", None), played.round_id: ("win", 1950)}
    assert main(["admin", "--database", str(database_url), "operators", "rounds"]) == 0
    assert refused.round_id is not None and played.round_id is not None
    lines = capsys.readouterr().out.splitlines()
    (line,) = [line for line in lines if refused.round_id in line]
    assert "1,950" not in line and " - " in line
    # Amounts in the session's currency: yen have no minor unit.
    (line,) = [line for line in lines if played.round_id in line]
    assert " ¥1,000 " in line and " ¥1,950 " in line
