"""Money: integer minor units (cents). Fractions become money through one named rounding."""

from __future__ import annotations

import enum
import math
import re
from fractions import Fraction


class Rounding(enum.Enum):
    """How a fractional amount of cents becomes whole cents."""

    # Down to the cent, in the house's favour (SPEC section 2: 0.975 returns 0.97).
    DOWN = "down"

    def apply(self, amount: Fraction) -> int:
        """Round a non-negative amount of cents to whole cents."""
        if amount < 0:
            raise ValueError("only non-negative amounts are rounded")
        return math.floor(amount)


class MoneyError(ValueError):
    """An amount of money could not be read."""


# ASCII digits only: \d and int() would also take "٣" or "３".
_AMOUNT = re.compile(r"^([0-9]{1,15})(?:\.([0-9]{1,2}))?$")


def parse_money(text: str) -> int:
    """Read an amount in currency units (``250``, ``250.5``, ``250.00``) as cents.

    >>> parse_money("250.05")
    25005
    """
    match = _AMOUNT.match(text.strip())
    if not match:
        raise MoneyError(f"bad amount {text!r}: write it like 250.00")
    units, cents = match.groups()
    return int(units) * 100 + int((cents or "0").ljust(2, "0"))


def format_money(cents: int) -> str:
    """Cents as currency units with two decimals.

    >>> format_money(-97)
    '-0.97'
    """
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(cents), 100)
    return f"{sign}{units}.{rest:02d}"
