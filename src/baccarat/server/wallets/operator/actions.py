"""The actions contract (docs/operator-api.md, ``protocol = "actions"``): one call per list
of a round's actions, the other common shape of the aggregators' seamless wallets.

A round's money goes in ``POST {wallet_url}/play`` requests, each a list of ``actions``
(``bet``, ``win``, or ``rollback`` naming the ``original_action_id`` it undoes), each action
with its own ``action_id``, and ``finished`` when the request ends the round. The operator
applies a request whole or not at all and answers the balance after all of its actions; the
same request again (the same actions: its body is the same bytes on every attempt) gets the
first answer. A house round's result is known when it is dealt, so its bet and its win go in
one request (``closes_with_bet``); a shared coup's bet goes when it is placed, its win at the
deal. Requests and answers are signed with the HMAC-SHA256 of the body, in ``X-Request-Sign``.
A refusal is an HTTP 4xx answer whose body names its ``code`` (and may give the operator's
``reason``); any answer may carry a ``message`` for the player, as in API v1.
"""

from __future__ import annotations

import uuid

from baccarat.server.wallets.operator import signing
from baccarat.server.wallets.operator.contract import (
    Answer,
    Request,
    RoundCall,
    StatusTables,
    Wager,
)

SIGNATURE_HEADER = "X-Request-Sign"
OK = "ok"
ALREADY = "already_processed"  # a request applied before: applied (with the kept balance)
UNKNOWN = "unknown"  # the game's word for no answer, or one it cannot read
LIMIT = "gambling_limit_exceeded"
# A bet refused with any of these codes is refused for good (any other: rolled back); what
# the player is told when the operator gave no reason of its own.
REASONS = {
    "insufficient_funds": "your balance at the casino does not cover this bet",
    LIMIT: "your casino's gambling limit does not allow this bet",
    "session_invalid": "your casino session is not valid: open the game again",
    "session_expired": "your casino session has expired: open the game again",
    "player_blocked": "your casino account may not play now",
    "wrong_currency": "your casino account is in another currency",
    "bad_signature": "the casino could not check the game's request",
    "action_conflict": "the casino refused the bet as a duplicate",
}
_SUFFIXES = {"bet": ":bet", "win": ":win", "rollback": ":rollback"}
WIN_ROLLBACK = ":rollback-win"  # the rollback of a win sent with its bet


class Actions(StatusTables):
    """The actions contract (``contract.WalletProtocol``)."""

    name = "actions"
    signature_header = SIGNATURE_HEADER
    applied, reasons, limit, unknown = (OK, ALREADY), REASONS, LIMIT, UNKNOWN

    def closes_with_bet(self, wager: Wager) -> bool:
        return wager.dealt

    def transaction_id(self, call: RoundCall, round_id: str) -> str:
        return round_id + _SUFFIXES[call]

    def balance_request(self, player: str, token: str, currency: str) -> Request:
        body = {"user_id": player, "session_token": token, "currency": currency}
        return Request(body, _attempt_id())

    def round_request(self, call: RoundCall, wager: Wager) -> Request:
        """A ``play`` request: the bet (with its win, for a round dealt already), the win,
        or the rollback of what the bet's request held."""
        rid = wager.round_id
        bet = {"action": "bet", "action_id": self.transaction_id("bet", rid),
               "amount": wager.stake, "bets": dict(wager.bets)}  # fmt: skip
        if wager.fee:
            bet["fee"] = wager.fee  # a multiplier table's: in the amount, never returned
        win = {"action": "win", "action_id": self.transaction_id("win", rid), "amount": wager.win}
        together = self.closes_with_bet(wager)
        if call == "bet":
            actions = [bet, win] if together else [bet]
        elif call == "win":
            actions = [win]
        else:
            actions = [{"action": "rollback", "action_id": self.transaction_id("rollback", rid),
                        "original_action_id": bet["action_id"]}]  # fmt: skip
            if together:  # the win went with the bet: it is undone with it
                actions.append({"action": "rollback", "action_id": rid + WIN_ROLLBACK,
                                "original_action_id": win["action_id"]})  # fmt: skip
        body = {
            "user_id": wager.player, "session_token": wager.token, "currency": wager.currency,
            "game": wager.table, "game_id": rid, "finished": call != "bet" or together,
            "actions": actions,
        }  # fmt: skip
        return Request(body, _attempt_id(), self.transaction_id(call, rid))

    def url(self, wallet_url: str, call: str) -> str:
        return f"{wallet_url}/{'play' if call in _SUFFIXES else call}"

    def headers(self, operator_id: str, secret: str, message: bytes) -> dict[str, str]:
        return {SIGNATURE_HEADER: signing.sign(secret, message)}

    def read_answer(self, http_status: int, content: bytes, signed: bool) -> Answer:
        if http_status != 200 and not 400 <= http_status < 500:
            return self.no_answer(f"HTTP {http_status}", http_status)
        data = self.body_of(http_status, content, signed)
        if isinstance(data, Answer):
            return data
        status = OK if http_status == 200 else data.get("code")
        if status not in self.outcomes:
            return self.no_answer(f"HTTP {http_status}, code {status!r}"[:200], http_status)
        found = self.answer(str(status), data, http_status)
        if status == OK and found.balance is None:
            return self.no_answer("the answer has no balance", http_status)
        return found


def _attempt_id() -> str:
    """The game's id of an attempt, kept with the call (the request carries none: it is the
    same bytes on every attempt)."""
    return str(uuid.uuid4())


ACTIONS = Actions()
