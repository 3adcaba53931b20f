"""The wallet contracts behind ``WalletProtocol``, in process: what each one sends for a
round's calls and how it reads the answers (its statuses, its signature, the operator's
reason and message), and the outbox driven by each (a house round on the actions contract
is one call, settled by its answer; its rollback undoes the bet and the win together).
What both contracts share is tested for both (``CONTRACTS``)."""

from __future__ import annotations

import json

import pytest

from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.kinds import load_tables
from baccarat.server.ledger import SystemAccounts
from baccarat.server.wallets.operator import launch, messages, report, signing
from baccarat.server.wallets.operator.contract import Answer, Wager, WalletProtocol
from baccarat.server.wallets.operator.protocols import CONTRACTS

from ..harness import FakeClock
from .conftest import both_backends
from .support import operator_answer, operator_player, operator_round

SECRET = "sixteen-chars-or-more"
TABLES = load_tables()
TABLE = TABLES["table-i"]
WAGER = Wager("r_1", "u42", "tok", "USD", "table-i", 1500, 1950, {"banker": 1000, "tie": 500},
              dealt=True)  # fmt: skip
# Each contract's words for: applied, applied before, the operator's limit, a lack of money.
WORDS = {
    "v1": {"ok": "RS_OK", "already": "RS_ERROR_ALREADY_PROCESSED",
           "limit": "RS_ERROR_GAMBLING_LIMIT_EXCEEDED", "money": "RS_ERROR_NOT_ENOUGH_MONEY"},
    "actions": {"ok": "ok", "already": "already_processed", "limit": "gambling_limit_exceeded",
                "money": "insufficient_funds"},
}  # fmt: skip
MESSAGE = {"id": "rc-7", "text": "You have played for 60 minutes.",
           "choices": ["continue", "close", "view_history"],
           "history_url": "https://casino.example/history"}  # fmt: skip


def answer_of(contract: WalletProtocol, word: str, balance: int | None = 98500,
              **more: object) -> tuple[int, bytes]:  # fmt: skip
    """An operator's answer in the contract's shape: (HTTP status, body)."""
    if contract.name == "v1":
        return 200, json.dumps({"status": word, "balance": balance, "currency": "USD", **more}
                               ).encode()  # fmt: skip
    if word == "ok":
        return 200, json.dumps({"balance": balance, **more}).encode()
    status = {"already_processed": 409, "gambling_limit_exceeded": 403}.get(word, 402)
    return status, json.dumps({"code": word, "balance": balance, **more}).encode()


def read(contract: WalletProtocol, status: int, body: bytes, secret: str = SECRET) -> Answer:
    signature = contract.headers("acme", secret, body)[contract.signature_header]
    return contract.read_answer(status, body, contract.signs(SECRET, body, signature))


@pytest.mark.parametrize("contract", CONTRACTS.values(), ids=list(CONTRACTS))
def test_each_contract_reads_its_answers_in_the_games_words(contract: WalletProtocol) -> None:
    words = WORDS[contract.name]
    ok = read(contract, *answer_of(contract, words["ok"]))
    assert (contract.outcome(ok.status), ok.balance, ok.message) == ("ok", 98500, None)
    # "Already processed" is applied: the balance the operator kept with it.
    again = read(contract, *answer_of(contract, words["already"], 97000))
    assert (contract.outcome(again.status), again.balance) == ("ok", 97000)
    # The operator's own limit: a refusal of its own, in its words.
    reason = "Your daily loss limit of $20.00 is reached."
    limited = read(contract, *answer_of(contract, words["limit"], reason=reason))
    assert contract.outcome(limited.status) == "refused" and contract.limited(limited.status)
    assert limited.reason == reason
    money = read(contract, *answer_of(contract, words["money"]))
    assert contract.outcome(money.status) == "refused" and not contract.limited(money.status)
    # A message for the player, with any answer.
    told = read(contract, *answer_of(contract, words["ok"], message=MESSAGE))
    assert told.message is not None
    assert (told.message.id, told.message.text, told.message.choices) == (
        "rc-7", MESSAGE["text"], ("continue", "close", "view_history"))  # fmt: skip
    assert told.message.history_url == MESSAGE["history_url"]
    odd = read(
        contract,
        *answer_of(contract, words["ok"], message={"id": "x", "text": "hi", "choices": ["later"]}),
    )
    assert odd.message is None and contract.outcome(odd.status) == "ok"  # the money stands
    # No answer the game can trust: unknown (a bet is rolled back, a win retried).
    for status, body, secret in ((500, b"oops", SECRET),
                                 (*answer_of(contract, words["ok"]), "another-secret-x"),
                                 (200, b"not json", SECRET)):  # fmt: skip
        assert contract.outcome(read(contract, status, body, secret).status) == "unknown"


def test_the_actions_contract_sends_a_house_rounds_bet_and_win_in_one_request() -> None:
    actions = CONTRACTS["actions"]
    assert actions.closes_with_bet(WAGER) and not CONTRACTS["v1"].closes_with_bet(WAGER)
    bet = actions.round_request("bet", WAGER)
    assert actions.url("http://op/wallet", "bet") == "http://op/wallet/play"
    assert bet.body["finished"] is True and bet.body["game_id"] == "r_1"
    assert bet.body["actions"] == [
        {"action": "bet", "action_id": "r_1:bet", "amount": 1500,
         "bets": {"banker": 1000, "tie": 500}},
        {"action": "win", "action_id": "r_1:win", "amount": 1950},
    ]  # fmt: skip
    # The same bytes on every attempt: a retry is the same request.
    assert actions.encode(actions.round_request("bet", WAGER).body) == actions.encode(bet.body)
    # Its rollback undoes both.
    rollback = actions.round_request("rollback", WAGER)
    assert [(a["action_id"], a["original_action_id"]) for a in rollback.body["actions"]] == [
        ("r_1:rollback", "r_1:bet"), ("r_1:rollback-win", "r_1:win")]  # fmt: skip
    # A shared coup's bet is placed before its deal: the bet alone, the round not finished.
    coup = Wager(*[getattr(WAGER, f) for f in ("round_id", "player", "token", "currency",
                                               "table", "stake", "win", "bets")])  # fmt: skip
    placed = actions.round_request("bet", coup).body
    assert [a["action"] for a in placed["actions"]] == ["bet"] and placed["finished"] is False
    # Signed over the body, in a header of its own.
    headers = actions.headers("acme", SECRET, b"{}")
    assert headers == {"X-Request-Sign": signing.sign(SECRET, b"{}")}


# -- the outbox driven by each contract ------------------------------------------------------


@both_backends
def test_a_house_round_on_the_actions_contract_is_one_call_settled_by_its_answer(
    db: Database, system: SystemAccounts
) -> None:
    s = operator_player(db, system)
    bet = operator_round(db, s, "actions")
    assert bet.closes and [a["action"] for a in bet.body["actions"]] == ["bet", "win"]
    win = db.run_read(lambda uow: uow.scalar("SELECT win FROM rounds WHERE id = :r",
                                             {"r": bet.round_id}))  # fmt: skip
    # The operator answers the balance after the bet and the win.
    assert operator_answer(db, bet, "ok", 5000 + win - 1000) == ("settled", None)
    (line,) = db.run_read(lambda uow: report.rounds(uow, "acme", None, None, None, None))[
        "rounds"]  # fmt: skip
    rid = bet.round_id
    assert [(t["type"], t["transaction_uuid"], t["state"], t["attempts"])
            for t in line["transactions"]] == [
        ("bet", f"{rid}:bet", "ok", 1), ("win", f"{rid}:win", "ok", 1)]  # fmt: skip
    shown = db.run_read(
        lambda uow: uow.one(
            "SELECT balance_before, balance_after FROM rounds WHERE id = :r", {"r": bet.round_id}
        )
    )
    assert tuple(shown or ()) == (5000, 5000 + win - 1000)  # fmt: skip
    # Unanswered: rolled back whole, the bet and the win it carried.
    unanswered = operator_round(db, s, "actions")
    state, rollback = operator_answer(db, unanswered, "unknown", None)
    assert state == "rollback" and rollback is not None
    assert [a["original_action_id"] for a in rollback.body["actions"]] == [
        f"{unanswered.round_id}:bet", f"{unanswered.round_id}:win"]  # fmt: skip
    assert operator_answer(db, rollback, "ok") == ("rolled_back", None)
    assert db.run_read(audit.check).ok


@both_backends
def test_an_answer_already_processed_is_applied_with_the_operators_balance(
    db: Database, system: SystemAccounts
) -> None:
    s = operator_player(db, system)
    bet = operator_round(db, s, "v1")
    state, win = operator_answer(db, bet, "RS_ERROR_ALREADY_PROCESSED", 4000)
    assert state == "win" and win is not None  # the bet is applied: its win goes on
    assert db.run_read(lambda uow: launch.session_of(uow, s.token_hash)).balance is not None
    assert operator_answer(db, win, "RS_ERROR_ALREADY_PROCESSED", 6000) == ("settled", None)
    assert db.run_read(lambda uow: launch.session_of(uow, s.token_hash)).balance == 6000
    assert db.run_read(audit.check).ok


@both_backends
def test_every_call_is_kept_with_its_bodies_and_found_by_round_player_and_time(
    db: Database, system: SystemAccounts, clock: FakeClock
) -> None:
    s, other = operator_player(db, system, "u42"), operator_player(db, system, "u43")
    first = operator_round(db, s, "actions")
    operator_answer(db, first, "ok", 9000, body='{"balance":9000}', reason=None)
    clock.advance(3600)
    second = operator_round(db, other, "v1")
    operator_answer(db, second, "RS_ERROR_NOT_ENOUGH_MONEY", 10, reason="no money", body="{}")
    # Kept well past four months: the game deletes none (launch codes are purged, not these).
    clock.advance(130 * 24 * 3600)
    db.run_write(lambda uow: launch.purge(uow, 1000))

    def find(**given: object) -> list[tuple[str | None, str | None]]:
        found = db.run_read(lambda uow: report.find_calls(uow, **given))  # type: ignore[arg-type]
        return [(c["round"], c["player"]) for c in found]

    assert find(player="u42") == [(first.round_id, "u42")]
    assert find(round_id=second.round_id) == [(second.round_id, "u43")]
    middle = db.clock() - (130 * 24 * 3600 + 1800) * 1_000_000
    assert find(start=middle) == [(second.round_id, "u43")]
    assert find(end=middle) == [(first.round_id, "u42")]
    (kept,) = db.run_read(lambda uow: report.find_calls(uow, round_id=first.round_id))
    assert json.loads(kept["body"])["actions"][0]["action_id"] == f"{first.round_id}:bet"
    assert kept["answer"] == '{"balance":9000}'
    (refused,) = db.run_read(lambda uow: report.find_calls(uow, player="u43"))
    assert (refused["status"], refused["reason"]) == ("RS_ERROR_NOT_ENOUGH_MONEY", "no money")


@both_backends
def test_a_message_of_the_operator_is_kept_once_until_the_player_chooses(
    db: Database, system: SystemAccounts
) -> None:
    from baccarat.server.errors import ServiceError
    from baccarat.server.wallets.operator.contract import read_message

    s = operator_player(db, system)
    note = read_message(MESSAGE)
    bet = operator_round(db, s, "v1")
    _, win = operator_answer(db, bet, "RS_OK", message=note)
    assert win is not None
    operator_answer(
        db, win, "RS_OK", message=note
    )  # the same message again (a first answer resent)
    waiting = db.run_read(lambda uow: messages.waiting(uow, s.player_id))
    assert waiting is not None and waiting["text"] == MESSAGE["text"]
    count = db.run_read(lambda uow: uow.scalar("SELECT COUNT(*) FROM operator_messages"))
    assert count == 1
    with pytest.raises(ServiceError) as refused:
        db.run_write(lambda uow: messages.choose(uow, s.player_id, waiting["id"], "later"))
    assert refused.value.details["field"] == "choice"
    chosen = db.run_write(lambda uow: messages.choose(uow, s.player_id, waiting["id"], "close"))
    assert chosen == ("rc-7", "close", True)
    again = db.run_write(lambda uow: messages.choose(uow, s.player_id, waiting["id"], "continue"))
    assert again == ("rc-7", "close", False)  # chosen once
    assert db.run_read(lambda uow: messages.waiting(uow, s.player_id)) is None
