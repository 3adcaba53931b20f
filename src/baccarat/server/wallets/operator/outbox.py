"""A round on an operator's wallet: a durable state machine, written before every call.

The round function (``round.play``) plays the round as every other: its money step is this
module's ``OperatorWallet``, which records the round's state ``bet`` and its bet call (the
outbox) in the same transaction as the round; nothing has left the process yet. Then each
call is sent (``engine``), and its answer moves the state (``answered``) by what it means
(``contract.Outcome``; API v1's statuses in brackets):

- ``bet``: ok (``RS_OK``) -> ``win`` (the result may be shown; the win call is written); a
  refusal -> ``refused`` (final); no answer (``RS_ERROR_UNKNOWN``), or any other ->
  ``rollback``;
- ``win``: ok -> ``settled`` (final); anything else is retried;
- ``rollback``: ok, or not applied (``RS_ERROR_TRANSACTION_DOES_NOT_EXIST``) ->
  ``rolled_back`` (final); anything else is retried.

The calls are in the words of the round's contract (``protocols``: the one its operator
spoke when it was created, kept with it), which writes their bodies and ids and reads their
answers' statuses; the statuses are recorded as they came, with the bodies sent and
answered. A contract may carry a house round's win in its bet's call
(``WalletProtocol.closes_with_bet``): that bet answered ok settles the round (``settled``,
no win call), and its rollback undoes both. The balance the operator answered is kept with
the player's sessions (``show_balance``, its one writer); a message it attached to an
answer is kept for the player (``messages``).

A bettor's bets on a shared coup (``shared``) are a round of their own, created
when they are placed, before the coup is dealt: its bet answered ok moves it to
``placed`` (the bet stands for the coup; the operator's balance is kept), and the coup's
deal moves it to ``win`` (the win written) or, if its bet was not applied by the close, to
``rollback``.
A bet refused or rolled back takes its bets off the coup (``shared_bets``).

A retry waits (``backoff``) and is taken by a worker (``claim_due``), which also resumes the
rounds of a process that stopped: a round still in ``bet`` whose lease has passed is rolled
back, since nobody knows whether its bet was applied. Every call is a row of
``operator_calls``: written before it is sent, completed with its answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from baccarat.core import Bets
from baccarat.server import daily
from baccarat.server.db.uow import UnitOfWork, sql_list
from baccarat.server.errors import ServiceError
from baccarat.server.jsontext import compact
from baccarat.server.ledger import record_elsewhere
from baccarat.server.money import Money, Posted
from baccarat.server.settings import Settings
from baccarat.server.wallets.operator import messages, protocols

# Named here too: the answers the outbox records.
from baccarat.server.wallets.operator.contract import Answer as Answer
from baccarat.server.wallets.operator.contract import RoundCall, Wager, WalletProtocol

# The contract of an operator the operators file names none for (API v1).
DEFAULT_CONTRACT = protocols.CONTRACTS[protocols.DEFAULT]
SHOWN = ("win", "settled")  # the bet was applied: the result is the player's
PLACED = "placed"  # a shared coup's bet applied, the coup not dealt yet
CALLING = ("bet", "win", "rollback")  # a call to the wallet is due: sent until answered
UNFINISHED = (*CALLING, PLACED)  # the rest (settled, refused, rolled_back) are final


# The longest wait between two attempts of a call: the settings' default.
MAX_BACKOFF_S = Settings.operator_max_backoff_s


@dataclass(frozen=True, slots=True)
class OperatorSession:
    """A game session launched by an operator (``launch``), as a round needs it."""

    token_hash: str
    player_id: int
    operator_id: str
    external_player: str
    token: str
    currency: str
    language: str
    table_id: str | None
    lobby_url: str | None
    demo: bool
    balance: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "operator": self.operator_id, "player": self.external_player,
            "currency": self.currency, "language": self.language, "table": self.table_id,
            "lobby_url": self.lobby_url, "demo": self.demo, "balance": self.balance,
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class Call:
    """One attempt of a call to an operator's wallet, as written before it is sent: its
    body in the words of its contract; the player it is for (ours: a message its answer
    carries is theirs); ``closes``: a bet's call that carries the round's win too."""

    id: int
    round_id: str | None
    operator_id: str
    call: str  # balance, bet, win, rollback, message
    body: Mapping[str, Any]
    contract: WalletProtocol = DEFAULT_CONTRACT
    player_id: int | None = None
    closes: bool = False


class OperatorWallet:
    """The wallet port (``money.Wallet``) toward an operator's seamless wallet: the round's
    money is written as its first call, to be sent once the transaction commits. It holds
    nothing in escrow and rolls no round back (the operator settles its rounds), and has no
    batches: none of the port's capabilities."""

    reserving = reversing = batching = None

    def __init__(self, session: OperatorSession, table_id: str, bets: Mapping[str, int],
                 lease_s: float, contract: WalletProtocol | None = None) -> None:  # fmt: skip
        self.session = session
        self.table_id = table_id
        self.bets = bets
        self.lease_us = int(lease_s * 1_000_000)
        self.contract = contract or DEFAULT_CONTRACT
        self.first: Call | None = None

    def balance(self, uow: UnitOfWork, player_id: int, mode: str) -> int:
        return self.session.balance or 0

    def settle(self, uow: UnitOfWork, kind: str, mode: str, reference: str, money: Money) -> Posted:
        s = self.session
        (player,) = money.players
        stake = money.covers[player]
        returned = stake + money.net(player)
        tx_id = record_elsewhere(uow, mode, reference, f"on the wallet of operator {s.operator_id}")
        bets = json.dumps(dict(self.bets), separators=(",", ":"))
        uow.run(
            "INSERT INTO operator_rounds (round_id, operator_id, player_id, external_player, "
            "token, currency, table_id, state, stake, win, bets, attempts, next_us, lease_us, "
            "created_us, protocol) VALUES (:r, :o, :p, :x, :tok, :c, :t, 'bet', :stake, :win, "
            ":bets, 1, :now, :lease, :now, :proto)",
            {
                "r": reference, "o": s.operator_id, "p": player, "x": s.external_player,
                "tok": s.token, "c": s.currency, "t": self.table_id, "stake": stake,
                "win": returned, "bets": bets, "now": uow.now, "lease": uow.now + self.lease_us,
                "proto": self.contract.name,
            },
        )  # fmt: skip
        written = (reference, s.operator_id, player, s.external_player, s.token, s.currency,
                   self.table_id, "bet", stake, returned, bets, 1, None,
                   self.contract.name)  # fmt: skip
        r = dict(zip(_ROUND_FIELDS, written, strict=True))
        self.first = _write_call(uow, r, "bet", 1)
        before = s.balance or 0
        return Posted(tx_id, {player: before - stake + returned}, s.currency)


# A round's row as ``_round`` reads it (its columns, in this order).
_ROUND_FIELDS = ("round", "operator", "player_id", "player", "token", "currency", "table",
                 "state", "stake", "win", "bets", "attempts", "coup", "protocol")  # fmt: skip


def _round(uow: UnitOfWork, round_id: str, lock: str = "") -> dict[str, Any]:
    row = uow.one(
        "SELECT round_id, operator_id, player_id, external_player, token, currency, table_id, "
        "state, stake, win, bets, attempts, coup_id, protocol FROM operator_rounds "
        "WHERE round_id = :r" + lock,
        {"r": round_id},
    )
    if row is None:
        raise ServiceError("unknown_round", f"no round {round_id} on an operator's wallet")
    return dict(zip(_ROUND_FIELDS, row, strict=True))


def _wager(r: Mapping[str, Any]) -> Wager:
    """A round's row, as its calls name it (a house round's result is known: it is dealt
    before its bet is sent; a shared coup's, after)."""
    return Wager(r["round"], r["player"], r["token"], r["currency"], r["table"], r["stake"],
                 r["win"], json.loads(r["bets"]), dealt=r["coup"] is None)  # fmt: skip


def contract_of(r: Mapping[str, Any]) -> WalletProtocol:
    """The contract a round is played in (its operator's when it was created)."""
    return protocols.contract(str(r["protocol"]))


def _write_call(uow: UnitOfWork, r: Mapping[str, Any], call: str, attempt: int) -> Call:
    """The outbox: the call's row, before it is sent."""
    contract, wager = contract_of(r), _wager(r)
    request = contract.round_request(cast(RoundCall, call), wager)
    closes = call == "bet" and contract.closes_with_bet(wager)
    return _record_call(uow, r["operator"], r["player"], call, contract, request.body,
                        request.request_id, request.transaction_id, attempt, r["round"],
                        int(r["player_id"]), closes)  # fmt: skip


def _record_call(
    uow: UnitOfWork, operator_id: str, player: str, call: str, contract: WalletProtocol,
    body: dict[str, Any], request_id: str, transaction: str | None = None, attempt: int = 1,
    round_id: str | None = None, player_id: int | None = None, closes: bool = False,
) -> Call:  # fmt: skip
    """A call's row (its body as it is sent), before it is sent."""
    call_id = int(
        uow.scalar(
            "INSERT INTO operator_calls (round_id, operator_id, player, call, transaction_uuid, "
            "request_uuid, attempt, sent_us, body) VALUES (:r, :o, :x, :c, :t, :q, :a, :now, "
            ":b) RETURNING id",
            {"r": round_id, "o": operator_id, "x": player, "c": call, "t": transaction,
             "q": request_id, "a": attempt, "now": uow.now,
             "b": contract.encode(body).decode()},
        )
    )  # fmt: skip
    return Call(call_id, round_id, operator_id, call, body, contract, player_id, closes)


def balance_call(uow: UnitOfWork, session: OperatorSession, contract: WalletProtocol) -> Call:
    """A balance call of a session, written before it is sent."""
    request = contract.balance_request(session.external_player, session.token, session.currency)
    return _record_call(uow, session.operator_id, session.external_player, "balance", contract,
                        request.body, request.request_id,
                        player_id=session.player_id)  # fmt: skip


def choice_call(uow: UnitOfWork, session: OperatorSession, contract: WalletProtocol,
                message: str, choice: str) -> Call:  # fmt: skip
    """The player's choice on a message of the operator, written before it is sent."""
    request = contract.choice_request(session.external_player, session.token, session.currency,
                                      message, choice)  # fmt: skip
    return _record_call(uow, session.operator_id, session.external_player, "message", contract,
                        request.body, request.request_id,
                        player_id=session.player_id)  # fmt: skip


def show_balance(uow: UnitOfWork, who: int | str, balance: int | None, plus: int = 0) -> None:
    """The one writer of ``operator_sessions.balance``, the operator's balance as the
    player's sessions show it: ``balance`` as the operator answered it, or (None) the one
    shown plus ``plus`` (a win the operator has not answered yet; none shown, none).
    ``who``: the player (every session of theirs), or a session by its token's hash."""
    column = "player_id" if isinstance(who, int) else "token_hash"
    uow.run(
        "UPDATE operator_sessions SET balance = COALESCE(CAST(:b AS BIGINT), balance + :plus) "
        f"WHERE {column} = :w",
        {"b": balance, "plus": plus, "w": who},
    )


def _complete_call(uow: UnitOfWork, call: Call, answer: Answer) -> None:
    """The call's answer, kept with it (its body as received, the operator's reason), and
    the message it carries for the player."""
    uow.run(
        "UPDATE operator_calls SET answered_us = :now, http_status = :h, status = :s, "
        "balance = :b, error = :e, answer = :body, reason = :why WHERE id = :id",
        {"now": uow.now, "h": answer.http_status, "s": answer.status, "b": answer.balance,
         "e": answer.error, "body": answer.body, "why": answer.reason, "id": call.id},
    )  # fmt: skip
    if answer.message is not None and call.player_id is not None:
        messages.keep(uow, call.operator_id, call.player_id, call.id, answer.message)


def session_answered(uow: UnitOfWork, call: Call, answer: Answer, token_hash: str) -> None:
    """A balance call's answer, or a choice's (the balance, if it gives one, is shown)."""
    _complete_call(uow, call, answer)
    if call.contract.outcome(answer.status) == "ok" and answer.balance is not None:
        show_balance(uow, token_hash, answer.balance)


def lease_for(timeout_s: float) -> float:
    """How long a process holds a round it sends a call of: past the call's timeout."""
    return 2 * timeout_s + 5


def backoff_us(timeout_s: float, attempts: int, cap_s: float = MAX_BACKOFF_S) -> int:
    """How long to wait before attempt ``attempts + 1``: the timeout, doubled each time."""
    return int(min(timeout_s * 2 ** max(attempts - 1, 0), cap_s) * 1_000_000)


def answered(
    uow: UnitOfWork, call: Call, answer: Answer, timeout_s: float, cap_s: float = MAX_BACKOFF_S
) -> tuple[str, Call | None]:
    """Record a call's answer and move the round's state: the new state, and the next call
    to send at once (written), if any; a retry later is left to the worker."""
    lease_s = lease_for(timeout_s)
    _complete_call(uow, call, answer)
    assert call.round_id is not None
    # Locked: a shared coup's close may move the round at the same moment (PostgreSQL).
    r = _round(uow, call.round_id, uow.for_update)
    state, status = r["state"], answer.status
    outcome = call.contract.outcome(status)
    if state != call.call and not (state == "rollback" and call.call == "bet"):
        return state, None  # answered late: the round moved on (its lease passed)
    if call.call == "bet" and state == "bet":
        if outcome == "ok" and r["coup"] is not None:
            # A shared coup's bet: it stands for the coup, which is dealt later.
            _placed(uow, r, status, answer.balance)
            return PLACED, None
        if outcome == "ok" and call.closes:
            # The bet's call carried the win: both applied, the round is settled.
            _shown(uow, r, bet_balance(call, answer.balance, r["win"]))
            uow.run("UPDATE operator_rounds SET win_status = :s WHERE round_id = :r",
                    {"s": status, "r": r["round"]})  # fmt: skip
            _finish(uow, r, "settled", "bet_status", status)
            return "settled", None
        if outcome == "ok":
            _shown(uow, r, answer.balance)
            return _next(uow, r, "win", "bet_status", status, lease_s)
        if outcome == "refused":
            _finish(uow, r, "refused", "bet_status", status)
            return "refused", None
        return _next(uow, r, "rollback", "bet_status", status, lease_s)
    if call.call == "bet":  # a late answer to a bet already being rolled back: keep it
        uow.run("UPDATE operator_rounds SET bet_status = :s WHERE round_id = :r",
                {"s": status, "r": r["round"]})  # fmt: skip
        return state, None
    done = ("ok",) if call.call == "win" else ("ok", "not_applied")
    column = f"{call.call}_status"
    if outcome in done:
        final = "settled" if call.call == "win" else "rolled_back"
        _finish(uow, r, final, column, status)
        if outcome == "ok" and answer.balance is not None:
            # The operator's balance as it now answered (shown to the player's sessions).
            show_balance(uow, int(r["player_id"]), answer.balance)
        return final, None
    uow.run(
        f"UPDATE operator_rounds SET {column} = NULL, next_us = :next, lease_us = 0 "
        "WHERE round_id = :r",
        {"next": uow.now + backoff_us(timeout_s, int(r["attempts"]), cap_s), "r": r["round"]},
    )
    return state, None


def bet_balance(call: Call, balance: int | None, win: int) -> int | None:
    """The operator's balance once the round's bet was applied, from its bet call's answer
    (which credited the win too if the call carried it)."""
    return balance - win if balance is not None and call.closes else balance


def shown_balances(balance: int, stake: int, win: int) -> tuple[int, int]:
    """A round's balances before and after it, from the operator's balance once its bet is
    applied (the stake taken, the win not yet credited)."""
    return balance + stake, balance + win


def _shown(uow: UnitOfWork, r: Mapping[str, Any], balance: int | None) -> None:
    """The bet is applied: the round's recorded balances are the operator's."""
    if balance is None:
        return
    before, after = shown_balances(balance, r["stake"], r["win"])
    uow.run(
        "UPDATE rounds SET balance_before = :before, balance_after = :after WHERE id = :r",
        {"before": before, "after": after, "r": r["round"]},
    )
    show_balance(uow, int(r["player_id"]), balance + r["win"])


def _placed(uow: UnitOfWork, r: Mapping[str, Any], status: str, balance: int | None) -> None:
    """A shared coup's bet is applied: it stands for the coup (no call until the deal)."""
    uow.run(
        "UPDATE operator_rounds SET state = 'placed', bet_status = :s, balance = :b, "
        "lease_us = 0 WHERE round_id = :r",
        {"s": status, "b": balance, "r": r["round"]},
    )
    if balance is not None:
        show_balance(uow, int(r["player_id"]), balance)


def unbet(uow: UnitOfWork, round_id: str) -> None:
    """A shared coup's bet that will not be played (refused, rolled back): off the coup."""
    uow.run("DELETE FROM shared_bets WHERE operator_round = :r", {"r": round_id})


def _next(
    uow: UnitOfWork, r: dict[str, Any], state: str, column: str, status: str, lease_s: float
) -> tuple[str, Call]:
    if state == "rollback" and r.get("coup") is not None:
        unbet(uow, r["round"])
    uow.run(
        f"UPDATE operator_rounds SET state = :state, {column} = :s, attempts = 1, "
        "next_us = :now, lease_us = :lease WHERE round_id = :r",
        {"state": state, "s": status, "now": uow.now, "r": r["round"],
         "lease": uow.now + int(lease_s * 1_000_000)},
    )  # fmt: skip
    return state, _write_call(uow, r | {"state": state}, state, 1)


def _finish(uow: UnitOfWork, r: Mapping[str, Any], state: str, column: str, status: str) -> None:
    uow.run(
        f"UPDATE operator_rounds SET state = :state, {column} = :s, finished_us = :now, "
        "lease_us = 0 WHERE round_id = :r",
        {"state": state, "s": status, "now": uow.now, "r": r["round"]},
    )
    if state == "refused" and r.get("coup") is not None:
        unbet(uow, r["round"])
    if state != "settled":
        # Refused or rolled back: the round never happened for the reports either.
        row = uow.one(
            "SELECT created_us, table_id, mode, bets FROM rounds WHERE id = :r", {"r": r["round"]}
        )
        if row is not None:
            daily.uncount(uow, int(row[0]), row[1], row[2], row[3], r["currency"], voided=False)


def coup_bet(
    uow: UnitOfWork, session: OperatorSession, table_id: str, coup_id: int, round_id: str,
    bets: Bets, wagered: int, lease_s: float, contract: WalletProtocol,
) -> Call:  # fmt: skip
    """A bettor's bets on a shared coup as a round on the operator's wallet (state ``bet``)
    and its bet call, written before it is sent: it takes what they wager (their stakes, and
    at a multiplier table the fee taken with them)."""
    stakes = compact(dict(bets.placed()))
    uow.run(
        "INSERT INTO operator_rounds (round_id, operator_id, player_id, external_player, "
        "token, currency, table_id, state, stake, win, bets, attempts, next_us, lease_us, "
        "created_us, coup_id, protocol) VALUES (:r, :o, :p, :x, :tok, :c, :t, 'bet', :stake, 0, "
        ":bets, 1, :now, :lease, :now, :coup, :proto)",
        {
            "r": round_id, "o": session.operator_id, "p": session.player_id,
            "x": session.external_player, "tok": session.token, "c": session.currency,
            "t": table_id, "stake": wagered, "bets": stakes, "now": uow.now,
            "lease": uow.now + int(lease_s * 1_000_000), "coup": coup_id,
            "proto": contract.name,
        },
    )  # fmt: skip
    written = (round_id, session.operator_id, session.player_id, session.external_player,
               session.token, session.currency, table_id, "bet", wagered, 0, stakes, 1,
               coup_id, contract.name)  # fmt: skip
    return _write_call(uow, dict(zip(_ROUND_FIELDS, written, strict=True)), "bet", 1)


def withdraw(uow: UnitOfWork, round_id: str, lease_s: float) -> Call | None:
    """A shared coup's bets replaced or withdrawn in the window: their round, if its bet
    may have been applied, is rolled back at once (the call written; None: it is final or
    being rolled back already). Its bets are the caller's to change."""
    r = _round(uow, round_id, uow.for_update)
    if r["state"] not in ("bet", PLACED):
        return None
    uow.run(
        "UPDATE operator_rounds SET state = 'rollback', attempts = 1, next_us = :now, "
        "lease_us = :lease WHERE round_id = :r",
        {"now": uow.now, "lease": uow.now + int(lease_s * 1_000_000), "r": round_id},
    )
    return _write_call(uow, r | {"state": "rollback"}, "rollback", 1)


def roll_back_later(uow: UnitOfWork, round_id: str) -> None:
    """A shared coup's round that will not be played (its bet not applied by the close, or
    its table retired): off the coup, and rolled back by the worker (due now)."""
    uow.run(
        "UPDATE operator_rounds SET state = 'rollback', attempts = 0, next_us = :now, "
        "lease_us = 0 WHERE round_id = :r",
        {"now": uow.now, "r": round_id},
    )
    unbet(uow, round_id)


def claim_due(uow: UnitOfWork, limit: int, lease_s: float) -> list[Call]:
    """Take up to ``limit`` unfinished rounds that are due and held by nobody (their lease
    passed): each one's next call, written in the round's contract. A round found in
    ``bet`` is rolled back."""
    rows = uow.all(
        f"SELECT round_id FROM operator_rounds WHERE state IN ({sql_list(CALLING)}) "
        "AND next_us <= :now AND lease_us <= :now ORDER BY next_us LIMIT :n",
        {"now": uow.now, "n": limit},
    )
    lease = uow.now + int(lease_s * 1_000_000)
    calls = []
    for (round_id,) in rows:
        taken = uow.run(
            "UPDATE operator_rounds SET lease_us = :lease, attempts = attempts + 1 "
            f"WHERE round_id = :r AND lease_us <= :now AND state IN ({sql_list(CALLING)})",
            {"lease": lease, "r": round_id, "now": uow.now},
        )
        if not taken:
            continue  # another process took it first
        r = _round(uow, round_id)
        if r["state"] == "bet":
            # The bet's fate is unknown (the process that sent it stopped): roll it back.
            uow.run(
                "UPDATE operator_calls SET error = 'no answer: the game stopped' "
                "WHERE round_id = :r AND call = 'bet' AND answered_us IS NULL",
                {"r": round_id},
            )
            uow.run(
                "UPDATE operator_rounds SET state = 'rollback', attempts = 1 WHERE round_id = :r",
                {"r": round_id},
            )
            if r["coup"] is not None:
                unbet(uow, round_id)
            r = r | {"state": "rollback", "attempts": 1}
        calls.append(_write_call(uow, r, r["state"], int(r["attempts"])))
    return calls


def refusal_reason(uow: UnitOfWork, round_id: str) -> str | None:
    """The operator's words with its refusal of a round's bet, if it gave some."""
    found = uow.scalar(
        "SELECT reason FROM operator_calls WHERE round_id = :r AND call = 'bet' "
        "AND reason IS NOT NULL ORDER BY id DESC LIMIT 1",
        {"r": round_id},
    )
    return None if found is None else str(found)


def state_of(uow: UnitOfWork, round_id: str) -> tuple[str, str | None]:
    """A round's state and its bet's answer."""
    r = uow.one(
        "SELECT state, bet_status FROM operator_rounds WHERE round_id = :r", {"r": round_id}
    )
    if r is None:
        raise ServiceError("unknown_round", f"no round {round_id} on an operator's wallet")
    return str(r[0]), r[1]
