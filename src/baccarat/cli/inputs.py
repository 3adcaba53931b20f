"""Operator input, validated as the player API validates a player's, before anything runs:
each check returns the value or raises ``UsageError`` (exit 2, one line) with the input
shown escaped and cut short (a control character or an escape sequence never reaches the
terminal)."""

from __future__ import annotations

import re

from baccarat.cli import UsageError

# A database id (BIGINT): ASCII digits only (int() also takes " 1", "+1", "1_0", "٣").
MAX_ID = 2**63 - 1
_WHOLE = re.compile(r"[0-9]{1,19}")
# Currency units with up to two decimals, ASCII digits, nothing around them.
_AMOUNT = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,2})?")
# As ``round.new_round_id`` makes them.
_ROUND_ID = re.compile(r"r_[0-9a-f]{20}")
# Notes, memos and void reasons (a void's reason is shown to the player).
MAX_TEXT = 200


def shown(text: str) -> str:
    """The input as it may be printed: escaped, and at most 40 characters of it."""
    return repr(text[:40]) + ("..." if len(text) > 40 else "")


def whole(text: str, what: str, low: int, high: int) -> int:
    if _WHOLE.fullmatch(text) is None or not low <= int(text) <= high:
        raise UsageError(f"{what} is a whole number from {low} to {high} in ASCII digits, "
                         f"not {shown(text)}")  # fmt: skip
    return int(text)


def request_id(text: str) -> int:
    return whole(text, "a request id", 1, MAX_ID)


def amount(text: str, currency: str = "USD") -> int:
    """Minor units (cents), from currency units (``250``, ``250.5``, ``250.00``; as many
    decimals as the currency has); more than zero and at most the wallet's bound."""
    from baccarat.core import format_money, parse_money
    from baccarat.server.currencies import HOME, format_amount, parse_amount
    from baccarat.server.wallet import MAX_AMOUNT

    if currency != HOME:
        try:
            minor = parse_amount(text, currency)
        except ValueError as error:
            raise UsageError(f"{error}; not {shown(text)}") from None
        if not 0 < minor <= MAX_AMOUNT:
            most = format_amount(MAX_AMOUNT, currency)
            raise UsageError(f"an amount is more than 0 and at most {most}; not {shown(text)}")
        return minor
    cents = parse_money(text) if _AMOUNT.fullmatch(text) else None
    if cents is None or not 0 < cents <= MAX_AMOUNT:
        most = format_money(MAX_AMOUNT)
        raise UsageError(f"an amount is ASCII digits with up to two decimals, more than 0 "
                         f"and at most {most}, like 250.00; not {shown(text)}")  # fmt: skip
    return cents


def nickname(text: str) -> str:
    from baccarat.server import accounts
    from baccarat.server.errors import ServiceError

    try:
        return accounts.check_nickname(text)
    except ServiceError as error:
        raise UsageError(f"{error.message}; not {shown(text)}") from None


def round_id(text: str) -> str:
    if _ROUND_ID.fullmatch(text) is None:
        raise UsageError(f"a round id is r_ and 20 lowercase hexadecimal digits (as the "
                         f"history shows it), not {shown(text)}")  # fmt: skip
    return text


def note(text: str | None, what: str) -> str | None:
    """Optional text kept with a decision (``--memo``, ``--note``, ``--reason``): 1 to
    MAX_TEXT printable characters (letters of any script, no control character, no line
    break, no bidirectional override), not only spaces."""
    if text is None:
        return None
    if not (0 < len(text) <= MAX_TEXT and text.isprintable() and text.strip()):
        raise UsageError(f"{what} is 1 to {MAX_TEXT} printable characters on one line, not "
                         f"{shown(text)}")  # fmt: skip
    return text
