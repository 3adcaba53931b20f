"""An operator's wallet contract behind one protocol (``WalletProtocol``): the words of an
aggregator's seamless-wallet API, its statuses, its signature, the shapes of its request
and transaction ids, its calls and the parsing of its answers.

The rest of ``wallets.operator`` (the outbox, the client, the engine, the report, the check)
speaks the game's words: a call (``balance``, ``bet``, ``win``, ``rollback``) of a round
(``Wager``), and what its answer means for the round (``Outcome``); the contract's own
status is recorded as it came (``Answer.status``). The operators' API v1
(docs/operator-api.md) is one contract (``api_v1``); another aggregator's is one more module
implementing ``WalletProtocol``, the contract of the operators that speak it
(``config.Operator.contract``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

RoundCall = Literal["bet", "win", "rollback"]
# What an answer means for the round, whatever the contract's word for it:
# - "ok": applied (or applied before: a repeat gets the first answer);
# - "refused": a bet refused for good (final: the player is told why, ``reason``);
# - "not_applied": the bet a rollback refers to was never applied (the rollback is done);
# - "unknown": no answer, or any other: a bet is rolled back, a win or rollback retried.
Outcome = Literal["ok", "refused", "not_applied", "unknown"]


@dataclass(frozen=True, slots=True)
class Answer:
    """What came back: the contract's status (its "no answer" when none came), and what
    else."""

    status: str
    balance: int | None = None
    http_status: int | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Wager:
    """A round on an operator's wallet, as its calls name it."""

    round_id: str
    player: str  # the operator's id of its player
    token: str  # the operator's session token
    currency: str
    table: str
    stake: int  # what the bet takes: the stakes, and at a multiplier table their fee
    win: int  # what returns to the player, stakes included (0 on a loss)
    bets: Mapping[str, int]  # bet name -> stake

    @property
    def fee(self) -> int:
        """A multiplier table's fee, taken with the stakes (0 elsewhere)."""
        return self.stake - sum(self.bets.values())


@dataclass(frozen=True, slots=True)
class Request:
    """A call as the contract sends it: its body, and the ids the outbox records with it
    before it is sent (a new request id each attempt; a round's transaction id the same)."""

    body: dict[str, Any]
    request_id: str
    transaction_id: str | None = None


class WalletProtocol(Protocol):
    """An aggregator's seamless-wallet contract, as the game speaks it."""

    @property
    def name(self) -> str:
        """What the operators' file calls it."""
        ...

    # -- statuses -------------------------------------------------------------------------

    def outcome(self, status: str) -> Outcome:
        """What a status means for the round."""
        ...

    def reason(self, status: str) -> str:
        """Why a bet was refused (an ``outcome`` "refused"), as the player is told."""
        ...

    def no_answer(self, error: str, http_status: int | None = None) -> Answer:
        """The answer of a call that got none the contract reads (a timeout, a closed
        connection, an answer that is not one): the outcome "unknown", and why."""
        ...

    # -- calls ----------------------------------------------------------------------------

    def transaction_id(self, call: RoundCall, round_id: str) -> str:
        """A round's transaction of a kind: the same on every attempt."""
        ...

    def balance_request(self, player: str, token: str, currency: str) -> Request:
        """A call for the player's balance."""
        ...

    def round_request(self, call: RoundCall, wager: Wager) -> Request:
        """A round's bet, win or rollback (the win and the rollback refer to the bet)."""
        ...

    def url(self, wallet_url: str, call: str) -> str:
        """Where a call goes, at the operator's wallet."""
        ...

    def encode(self, body: Mapping[str, Any]) -> bytes:
        """A call's body as sent (and signed)."""
        ...

    # -- signing --------------------------------------------------------------------------

    @property
    def signature_header(self) -> str:
        """The header that carries a message's signature, both ways."""
        ...

    def headers(self, operator_id: str, secret: str, message: bytes) -> dict[str, str]:
        """The headers of a signed request or answer."""
        ...

    def signs(self, secret: str, message: bytes, signature: str | None) -> bool:
        """Whether ``signature`` is the message's, with the operator's secret."""
        ...

    # -- answers --------------------------------------------------------------------------

    def read_answer(self, http_status: int, content: bytes, signed: bool) -> Answer:
        """An answer as the contract has it (``signed``: its signature checked), or its
        "no answer" saying what was wrong."""
        ...
