"""Currencies: ISO 4217 codes and their minor units, from Babel (the CLDR's data), never a
table of our own. Every amount is an integer of its currency's minor unit (EUR cents, JPY
yen, KWD fils); the casino's own accounts, and a table's top-level limits, are in ``HOME``."""

from __future__ import annotations

import re
from functools import cache

HOME = "USD"
_AMOUNT = re.compile(r"^(\d{1,15})(?:\.(\d+))?$")


@cache
def known() -> frozenset[str]:
    from babel.numbers import list_currencies

    return frozenset(list_currencies())


def digits(code: str) -> int:
    """The currency's minor unit, as decimal digits (EUR 2, JPY 0, KWD 3)."""
    from babel.numbers import get_currency_precision

    if code not in known():
        raise ValueError(f"{code!r} is not an ISO 4217 currency code")
    return int(get_currency_precision(code))


def format_amount(minor: int, code: str) -> str:
    """Minor units of ``code`` as an English text of the currency ("¥2,500", "€12.50")."""
    from decimal import Decimal

    from babel.numbers import format_currency

    return str(format_currency(Decimal(minor).scaleb(-digits(code)), code, locale="en_US"))


def parse_amount(text: object, code: str) -> int:
    """An amount written in currency units ("2.50", "300") as minor units of ``code``.

    >>> parse_amount("2.5", "EUR"), parse_amount("300", "JPY"), parse_amount("0.125", "KWD")
    (250, 300, 125)
    """
    places = digits(code)
    if isinstance(text, bool) or not isinstance(text, str | int):
        raise ValueError('write amounts as text, like "2.50"')
    match = _AMOUNT.match(str(text).strip())
    if not match or len(match.group(2) or "") > places:
        raise ValueError(f"bad {code} amount {text!r}: at most {places} decimals")
    units, minor = match.groups()
    scale: int = 10**places
    return int(units) * scale + int((minor or "").ljust(places, "0") or "0")
