"""An operator's wallet contract behind one protocol (``WalletProtocol``): the words of an
aggregator's seamless-wallet API, its statuses, its signature, the shapes of its request
and transaction ids, its calls and the parsing of its answers.

The rest of ``wallets.operator`` (the outbox, the client, the engine, the report, the check)
speaks the game's words: a call (``balance``, ``bet``, ``win``, ``rollback``, and the
player's ``message`` choice) of a round (``Wager``), and what its answer means for the round
(``Outcome``); the contract's own status is recorded as it came (``Answer.status``). A
contract may carry a round's win in its bet's call when the round's result is known as the
bet is sent (``closes_with_bet``: a house round; a shared coup is dealt after its bets):
the round is then settled by the bet's answer. The contracts are named in ``protocols``
(the operators file picks one per operator: ``api_v1``, ``actions``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol
from urllib.parse import urlsplit

from baccarat.server.jsontext import compact
from baccarat.server.wallets.operator import signing

RoundCall = Literal["bet", "win", "rollback"]
# What an answer means for the round, whatever the contract's word for it:
# - "ok": applied (or applied before: a repeat gets the first answer, or "already
#   processed", which is the same);
# - "refused": a bet refused for good (final: the player is told why, ``reason``);
# - "not_applied": the bet a rollback refers to was never applied (the rollback is done);
# - "unknown": no answer, or any other: a bet is rolled back, a win or rollback retried.
Outcome = Literal["ok", "refused", "not_applied", "unknown"]
# What a player may answer an operator's message (a reality check): play on, leave the game
# (to the operator's lobby), or see their history.
CHOICES = ("continue", "close", "view_history")
MESSAGE_TEXT = 1000  # the longest message or reason kept (characters)


@dataclass(frozen=True, slots=True)
class Message:
    """A message an operator attached to an answer for its player (a reality check): its id
    (the operator's), its words, the choices it offers (of ``CHOICES``) and the address of
    the operator's own history of the player, if it gave one."""

    id: str
    text: str
    choices: tuple[str, ...]
    history_url: str | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """What came back: the contract's status (its "no answer" when none came), and what
    else: the operator's words with a refusal (``reason``), a message for the player, and
    the answer's body as received (kept with the call)."""

    status: str
    balance: int | None = None
    http_status: int | None = None
    error: str | None = None
    reason: str | None = None
    message: Message | None = None
    body: str | None = None


@dataclass(frozen=True, slots=True)
class Wager:
    """A round on an operator's wallet, as its calls name it. ``dealt``: its result was
    known when it was created (a house round), so its bet's call may carry its win."""

    round_id: str
    player: str  # the operator's id of its player
    token: str  # the operator's session token
    currency: str
    table: str
    stake: int  # what the bet takes: the stakes, and at a multiplier table their fee
    win: int  # what returns to the player, stakes included (0 on a loss)
    bets: Mapping[str, int]  # bet name -> stake
    dealt: bool = False

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
        """What the operators' file calls it (``protocol``)."""
        ...

    # -- statuses -------------------------------------------------------------------------

    @property
    def refusals(self) -> tuple[str, ...]:
        """Its statuses of a bet refused for good (the player's page has words for each)."""
        ...

    def outcome(self, status: str) -> Outcome:
        """What a status means for the round."""
        ...

    def reason(self, status: str) -> str:
        """Why a bet was refused (an ``outcome`` "refused"), as the player is told when the
        operator gave no words of its own."""
        ...

    def limited(self, status: str) -> bool:
        """Whether a refusal is the operator's responsible-gaming limit (gambling limit
        exceeded): the player is told the operator's reason."""
        ...

    def no_answer(self, error: str, http_status: int | None = None) -> Answer:
        """The answer of a call that got none the contract reads (a timeout, a closed
        connection, an answer that is not one): the outcome "unknown", and why."""
        ...

    # -- calls ----------------------------------------------------------------------------

    def closes_with_bet(self, wager: Wager) -> bool:
        """Whether the round's bet call carries its win too (the bet's answer settles it)."""
        ...

    def transaction_id(self, call: RoundCall, round_id: str) -> str:
        """A round's transaction of a kind: the same on every attempt."""
        ...

    def balance_request(self, player: str, token: str, currency: str) -> Request:
        """A call for the player's balance."""
        ...

    def choice_request(self, player: str, token: str, currency: str, message: str,
                       choice: str) -> Request:  # fmt: skip
        """The player's choice (of ``CHOICES``) on the operator's message ``message``."""
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


class StatusTables:
    """What a contract's statuses mean, read from its tables, and what every contract so
    far does alike (a JSON body, its HMAC-SHA256, a choice written as a balance call with
    two fields more): the part of ``WalletProtocol`` its modules share."""

    applied: ClassVar[tuple[str, ...]]  # "ok": applied (now, or before: a repeat)
    not_applied: ClassVar[tuple[str, ...]] = ()  # a rollback's bet that was never applied
    reasons: ClassVar[Mapping[str, str]]  # a refusal ("refused") -> what the player is told
    limit: ClassVar[str]  # the operator's gambling limit
    unknown: ClassVar[str]  # no answer, in the contract's word

    def __init__(self) -> None:
        # The statuses that are not "unknown", and what each means for the round.
        outcomes: dict[str, Outcome] = {status: "ok" for status in self.applied}
        outcomes |= {status: "not_applied" for status in self.not_applied}
        outcomes |= {status: "refused" for status in self.reasons}
        self.outcomes: Mapping[str, Outcome] = outcomes

    @property
    def refusals(self) -> tuple[str, ...]:
        return tuple(self.reasons)

    def outcome(self, status: str) -> Outcome:
        return self.outcomes.get(status, "unknown")

    def reason(self, status: str) -> str:
        return self.reasons.get(status, status)

    def limited(self, status: str) -> bool:
        return status == self.limit

    def no_answer(self, error: str, http_status: int | None = None) -> Answer:
        return Answer(self.unknown, http_status=http_status, error=error)

    def balance_request(self, player: str, token: str, currency: str) -> Request:
        raise NotImplementedError

    def choice_request(self, player: str, token: str, currency: str, message: str,
                       choice: str) -> Request:  # fmt: skip
        request = self.balance_request(player, token, currency)
        request.body.update(message_id=message, choice=choice)
        return request

    def encode(self, body: Mapping[str, Any]) -> bytes:
        return compact(body).encode()

    def signs(self, secret: str, message: bytes, signature: str | None) -> bool:
        return signing.matches(secret, message, signature)

    def body_of(self, http_status: int, content: bytes, signed: bool) -> dict[str, Any] | Answer:
        """A signed answer's JSON object, or the "no answer" saying what is wrong with it."""
        if not signed:
            return self.no_answer("the answer's signature is bad", http_status)
        try:
            data: Any = json.loads(content)
        except ValueError:
            return self.no_answer("the answer is not JSON", http_status)
        if not isinstance(data, dict):
            return self.no_answer("the answer is not a JSON object", http_status)
        return data

    def answer(self, status: str, data: Mapping[str, Any], http_status: int) -> Answer:
        """The answer of that status with what its body gives besides (both contracts write
        them alike): the balance, the operator's reason, a message for the player."""
        balance = data.get("balance")
        if isinstance(balance, bool) or not isinstance(balance, int):
            balance = None
        return Answer(status, balance, http_status, reason=words(data.get("reason")),
                      message=read_message(data.get("message")))  # fmt: skip


def words(value: Any) -> str | None:
    """An operator's words (a reason, a message's text) if they are some: printable text,
    cut to ``MESSAGE_TEXT`` characters; else None."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())[:MESSAGE_TEXT]
    return text if text and text.isprintable() else None


def read_message(value: Any) -> Message | None:
    """The message an answer carries (both contracts write it alike: ``{"id", "text",
    "choices", "history_url"}``), or None: none, or not one (the answer stands without it)."""
    if not isinstance(value, dict):
        return None
    message_id, text = value.get("id"), words(value.get("text"))
    choices = value.get("choices", ["continue"])
    if (
        not isinstance(message_id, str | int) or isinstance(message_id, bool)
        or not 1 <= len(str(message_id)) <= 64 or text is None
        or not isinstance(choices, list) or not choices
        or not all(c in CHOICES for c in choices)
    ):  # fmt: skip
        return None
    history = value.get("history_url")
    history = web_address(history) if isinstance(history, str) and len(history) <= 2000 else None
    return Message(str(message_id), text, tuple(dict.fromkeys(choices)), history)


def web_address(url: str | None) -> str | None:
    """The address if it is a web address (``http`` or ``https``, with a host): one the
    game's pages may link to (never a ``javascript:`` one); else None."""
    if url is None:
        return None
    parts = urlsplit(url)
    return url if parts.scheme in ("http", "https") and parts.netloc else None
