"""Typed refusals: every error the server answers has a stable code, a status and a message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ErrorSpec:
    status: int
    description: str


# The catalogue of stable error codes. Clients switch on the code, never on the message.
ERRORS: dict[str, ErrorSpec] = {
    "invalid_body": ErrorSpec(422, "the request body is not valid JSON of the expected shape"),
    "invalid_request": ErrorSpec(422, "a query, path or header parameter is not valid"),
    "invalid_mode": ErrorSpec(422, "the mode is neither 'fun' nor 'real'"),
    "invalid_amount": ErrorSpec(422, "an amount is not a positive whole number of cents"),
    "invalid_nickname": ErrorSpec(422, "a nickname is 3-24 ASCII letters, digits, '_' or '-'"),
    "invalid_password": ErrorSpec(
        422, "a password is 10 to 256 characters, not a common one, without the nickname"
    ),
    "invalid_client_seed": ErrorSpec(422, "a client seed is 1-64 printable ASCII characters"),
    "invalid_cut": ErrorSpec(422, "the cut position is outside the shoe"),
    "invalid_cursor": ErrorSpec(422, "the history cursor is unknown"),
    "token_in_url": ErrorSpec(400, "a session token was sent in a URL: use a header"),
    "invalid_reason": ErrorSpec(422, "a void's reason is 1-200 printable characters"),
    "no_bets": ErrorSpec(422, "a round needs at least one bet"),
    "bet_not_offered": ErrorSpec(422, 'the table does not take this bet (see its "bets")'),
    "bet_below_table_min": ErrorSpec(422, "a bet is below its minimum at this table"),
    "bet_above_table_max": ErrorSpec(422, "a bet is above its maximum at this table"),
    "tie_below_min": ErrorSpec(422, "the tie bet is below its minimum"),
    "tie_above_max": ErrorSpec(422, "the tie bet is above its maximum"),
    "not_a_chip_multiple": ErrorSpec(422, "a stake cannot be made of the table's chips"),
    "not_a_fee_multiple": ErrorSpec(
        422, "a multiplier table's stake is not a whole multiple of what makes its fee exact"
    ),
    "insufficient_funds": ErrorSpec(409, "the balance does not cover the stake"),
    "cut_required": ErrorSpec(409, "the player's shoe waits for the player's cut"),
    "shoe_in_progress": ErrorSpec(409, "the shoe is still being dealt: no cut is due"),
    "not_a_cut_shoe_table": ErrorSpec(409, "this table shuffles before every round"),
    "shared_table": ErrorSpec(409, "a shared table deals on its clock: bet on its coup"),
    "not_a_shared_table": ErrorSpec(409, "this table has no shared coups"),
    "unknown_coup": ErrorSpec(404, "the table has no such coup"),
    "unknown_shoe": ErrorSpec(404, "the table has no such shoe"),
    "unknown_commitment": ErrorSpec(
        404, "no commitment of yours, of a seat of yours or of a shared table's shoe"
    ),
    "betting_closed": ErrorSpec(409, "the coup's betting window has closed: nothing was taken"),
    "not_authenticated": ErrorSpec(401, "no valid session token or cookie"),
    "session_inactive": ErrorSpec(
        401, "the session ended after its profile's inactivity time-out: log in again"
    ),
    "invalid_credentials": ErrorSpec(401, "wrong nickname or password"),
    "csrf_failed": ErrorSpec(403, "the X-CSRF-Token header does not match the session"),
    "forbidden": ErrorSpec(403, "this action is not allowed"),
    "metrics_disabled": ErrorSpec(404, "the server serves no metrics (no metrics token is set)"),
    "metrics_unauthorized": ErrorSpec(401, "the metrics need the operator's metrics token"),
    "not_found": ErrorSpec(404, "no such resource"),
    "unknown_table": ErrorSpec(404, "no table with this id"),
    "unknown_round": ErrorSpec(404, "no round with this id among the player's rounds"),
    "unknown_player": ErrorSpec(404, "no player with this nickname"),
    "unknown_request": ErrorSpec(404, "no cashier request with this id"),
    "method_not_allowed": ErrorSpec(405, "this path does not accept this method"),
    "nickname_taken": ErrorSpec(409, "another player has this nickname"),
    "request_not_pending": ErrorSpec(409, "the cashier request was already decided"),
    "void_not_possible": ErrorSpec(409, "the round cannot be voided"),
    "idempotency_key_required": ErrorSpec(400, "money-moving requests need an Idempotency-Key"),
    "idempotency_conflict": ErrorSpec(409, "the Idempotency-Key was used with another request"),
    "payload_too_large": ErrorSpec(413, "the request body is too large"),
    "request_timeout": ErrorSpec(408, "the request body did not arrive in time"),
    "request_head_too_large": ErrorSpec(431, "the request line and headers pass 16 KiB"),
    "too_many_connections": ErrorSpec(503, "this address holds its share of connections"),
    "unsupported_media_type": ErrorSpec(415, "the request body must be application/json"),
    "rate_limited": ErrorSpec(429, "too many failed attempts: wait for Retry-After seconds"),
    "login_throttled": ErrorSpec(
        429,
        "too many failed logins of this account from elsewhere "
        "than its owner's: wait for Retry-After seconds",
    ),
    "too_many_sockets": ErrorSpec(429, "the account holds as many WebSockets as it may"),
    "service_unavailable": ErrorSpec(503, "the database is busy or unreachable: retry"),
    "internal_error": ErrorSpec(500, "an unexpected error (a bug: please report it)"),
    # Player-banked tables (SPEC §7).
    "player_banked_table": ErrorSpec(409, "this table is player-banked: take a seat instead"),
    "invalid_signature": ErrorSpec(401, "the X-Signature is not the HMAC of the request"),
    "invalid_launch_code": ErrorSpec(401, "the launch code is unknown, used or expired"),
    "launch_out_of_window": ErrorSpec(401, "the launch's timestamp is over 5 minutes off"),
    "request_uuid_reused": ErrorSpec(409, "the request_uuid was sent with another launch"),
    "unsupported_currency": ErrorSpec(422, "the operator or the table has no such currency"),
    "table_not_offered": ErrorSpec(403, "the operator does not offer this table"),
    "mode_not_in_session": ErrorSpec(409, "a demo session plays fun money, a real one real"),
    "operator_session_not_allowed": ErrorSpec(
        403, "an operator's session plays on the operator's wallet only: not this route"
    ),
    "operator_refused": ErrorSpec(402, "the operator's wallet refused the bet"),
    "operator_limit": ErrorSpec(403, "the operator refused the bet for its gambling limits"),
    "unknown_message": ErrorSpec(404, "the session's player has no such message of the operator"),
    "operator_unavailable": ErrorSpec(503, "the operator's wallet did not answer"),
    "not_a_banked_table": ErrorSpec(409, "this table is banked by the casino, not by players"),
    "unknown_seat": ErrorSpec(404, "no player-banked seat with this id"),
    "already_seated": ErrorSpec(409, "the player already sits at a seat in this role"),
    "seat_taken": ErrorSpec(409, "another player has this role at this seat"),
    "seat_mode_mismatch": ErrorSpec(409, "this seat plays the other mode (fun or real)"),
    "table_full": ErrorSpec(409, "no seat of this table needs this role in this mode"),
    "banker_points_too_low": ErrorSpec(409, "too few loyalty points to bank at this table"),
    "banker_balance_too_low": ErrorSpec(409, "the balance is below this table's banker minimum"),
    "not_seated": ErrorSpec(409, "the player does not sit at this seat"),
    "not_your_turn": ErrorSpec(409, "this action is not the caller's to take now"),
    "deadline_passed": ErrorSpec(409, "the time for this decision ran out"),
    "no_seat_seed": ErrorSpec(409, "the seat's seed is committed when both roles are seated"),
    "client_seed_fixed": ErrorSpec(409, "the seat's client seeds were fixed by its first deal"),
    # Responsible gaming (docs/responsible-gaming.md).
    "deposit_limit_reached": ErrorSpec(409, "the deposit would pass one of your deposit limits"),
    "loss_limit_reached": ErrorSpec(409, "the stake could pass one of your net-loss limits"),
    "wager_limit_reached": ErrorSpec(409, "the stake would pass one of your wager limits"),
    "session_limit_reached": ErrorSpec(409, "your session time limit has ended play"),
    "reality_check_due": ErrorSpec(409, "a reality check waits for your acknowledgement"),
    "self_excluded": ErrorSpec(403, "you excluded yourself from play: it cannot end early"),
    "timed_out": ErrorSpec(403, "you took a time-out from play: it cannot end early"),
    "player_excluded": ErrorSpec(
        409, "the player is timed out or self-excluded: an operator's credit needs confirming"
    ),
    "invalid_limit": ErrorSpec(422, "a limit is a whole number of cents (minutes) or null"),
    "invalid_reality_check": ErrorSpec(422, "a reality-check interval is 1 to 1440 minutes"),
    "invalid_exclusion": ErrorSpec(
        422, "a time-out is 1, 7 or 30 days; a self-exclusion 6, 12 or 60 months"
    ),
    # The back office (docs/back-office.md).
    "invalid_staff_name": ErrorSpec(422, "a staff name is 3-24 ASCII letters, digits, '_' or '-'"),
    "invalid_role": ErrorSpec(422, "a role is viewer, support, finance or admin"),
    "staff_name_taken": ErrorSpec(409, "another staff account has this name"),
    "reason_required": ErrorSpec(422, "a staff action needs a reason of 1-200 characters"),
    "same_person": ErrorSpec(409, "a proposal needs another admin's approval"),
    "unknown_staff": ErrorSpec(404, "no staff account with this name"),
    "staff_unchanged": ErrorSpec(409, "the staff account is so already"),
    "last_admin": ErrorSpec(409, "the last active admin can be neither disabled nor demoted"),
    "table_disabled": ErrorSpec(409, "the table is closed: no new rounds start"),
    # Jurisdiction profiles (docs/jurisdictions.md): each names the rule it enforces.
    "unknown_market": ErrorSpec(422, "a launch's market is none of the server's profiles"),
    "cycle_too_soon": ErrorSpec(409, "a round starts too soon after the last one's start"),
    "autoplay_not_allowed": ErrorSpec(
        403, "the profile in force allows no (or no longer) autoplay"
    ),
    "multi_table_not_allowed": ErrorSpec(403, "the profile allows fewer tables at once"),
    "favourites_not_allowed": ErrorSpec(403, "the profile in force has no favourite bets"),
    "favourites_full": ErrorSpec(409, "five favourites are kept per kind of table"),
    "invalid_favourite": ErrorSpec(422, "a favourite is a name and at least one bet"),
}


class ServiceError(Exception):
    """A refusal with a stable code; the HTTP layer turns it into a 4xx JSON answer."""

    def __init__(self, code: str, message: str, **details: Any):
        if code not in ERRORS:
            raise KeyError(f"unregistered error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    @property
    def status(self) -> int:
        return ERRORS[self.code].status

    def to_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}

    def __repr__(self) -> str:
        return f"ServiceError({self.code!r}, {self.message!r})"


class RateLimited(ServiceError):
    def __init__(self, message: str, retry_after_s: int, code: str = "rate_limited",
                 **details: Any):  # fmt: skip
        super().__init__(code, message, retry_after=retry_after_s, **details)
        self.retry_after_s = retry_after_s
