"""The operators' API v1 (docs/operator-api.md, ``protocol = "v1"``): the seamless-wallet
model of the industry's aggregators (Hub88's wallet API, whose ``RS_`` statuses it takes).
Its calls are signed JSON POSTs to ``{wallet_url}/{call}``, each with a new
``request_uuid`` and, a round's, a ``transaction_uuid`` that makes it safe to repeat: the
round's id behind a letter of its kind (``b-``, ``w-``, ``x-``). A round is two calls, its
bet and its win (or the bet's rollback).
"""

from __future__ import annotations

import uuid
from typing import Any

from baccarat.server.wallets.operator import signing
from baccarat.server.wallets.operator.contract import (
    Answer,
    Request,
    RoundCall,
    StatusTables,
    Wager,
)

OK = "RS_OK"
UNKNOWN = "RS_ERROR_UNKNOWN"
NOT_APPLIED = "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
# A repeat of a transaction applied before, answered so rather than with its first answer:
# applied (the balance is the one the operator kept with it).
ALREADY = "RS_ERROR_ALREADY_PROCESSED"
LIMIT = "RS_ERROR_GAMBLING_LIMIT_EXCEEDED"  # the operator's responsible-gaming limit
# A bet refused with any of these is refused for good (the others: rolled back); what the
# player is told.
REASONS = {
    "RS_ERROR_NOT_ENOUGH_MONEY": "your balance at the casino does not cover this bet",
    "RS_ERROR_INVALID_TOKEN": "your casino session is not valid: open the game again",
    "RS_ERROR_TOKEN_EXPIRED": "your casino session has expired: open the game again",
    "RS_ERROR_WRONG_CURRENCY": "your casino account is in another currency",
    "RS_ERROR_INVALID_SIGNATURE": "the casino could not check the game's request",
    "RS_ERROR_USER_DISABLED": "your casino account may not play now",
    "RS_ERROR_DUPLICATE_TRANSACTION": "the casino refused the bet as a duplicate",
    LIMIT: "your casino's gambling limit does not allow this bet",
}
REFUSALS = tuple(REASONS)
STATUSES = (OK, ALREADY, *REFUSALS, NOT_APPLIED, UNKNOWN)
_PREFIXES = {"bet": "b-", "win": "w-", "rollback": "x-"}


class OperatorApiV1(StatusTables):
    """The contract of docs/operator-api.md (``contract.WalletProtocol``)."""

    name = "v1"
    signature_header = signing.SIGNATURE_HEADER
    applied, not_applied = (OK, ALREADY), (NOT_APPLIED,)
    reasons, limit, unknown = REASONS, LIMIT, UNKNOWN

    def closes_with_bet(self, wager: Wager) -> bool:
        return False  # a bet, then its win: two calls

    def transaction_id(self, call: RoundCall, round_id: str) -> str:
        return _PREFIXES[call] + round_id

    def balance_request(self, player: str, token: str, currency: str) -> Request:
        request_id = _request_id()
        body = {"request_uuid": request_id, "player": player, "token": token,
                "currency": currency}  # fmt: skip
        return Request(body, request_id)

    def round_request(self, call: RoundCall, wager: Wager) -> Request:
        request_id, transaction = _request_id(), self.transaction_id(call, wager.round_id)
        body: dict[str, Any] = {
            "request_uuid": request_id, "player": wager.player, "token": wager.token,
            "currency": wager.currency, "transaction_uuid": transaction,
        }  # fmt: skip
        if call == "bet":
            body |= {"round": wager.round_id, "table": wager.table, "amount": wager.stake,
                     "bets": dict(wager.bets)}  # fmt: skip
            if wager.fee:
                body["fee"] = wager.fee  # a multiplier table's: in the amount, never returned
        else:
            body["reference_transaction_uuid"] = self.transaction_id("bet", wager.round_id)
            body["round"] = wager.round_id
            if call == "win":
                body |= {"amount": wager.win, "round_closed": True}
        return Request(body, request_id, transaction)

    def url(self, wallet_url: str, call: str) -> str:
        return f"{wallet_url}/{call}"

    def headers(self, operator_id: str, secret: str, message: bytes) -> dict[str, str]:
        return signing.headers(operator_id, secret, message)

    def read_answer(self, http_status: int, content: bytes, signed: bool) -> Answer:
        if http_status != 200:
            return self.no_answer(f"HTTP {http_status}", http_status)
        data = self.body_of(http_status, content, signed)
        if isinstance(data, Answer):
            return data
        status = data.get("status")
        if status not in STATUSES:
            return self.no_answer(f"unknown status {status!r}"[:200], http_status)
        return self.answer(status, data, http_status)


def _request_id() -> str:
    return str(uuid.uuid4())


API_V1 = OperatorApiV1()
