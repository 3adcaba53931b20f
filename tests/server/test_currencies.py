"""Currencies: minor units from ISO 4217 (Babel), and tables' chips and limits per currency."""

from __future__ import annotations

from pathlib import Path

import pytest

from baccarat.core import Bets
from baccarat.server.currencies import digits, format_amount, parse_amount
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import load_tables
from baccarat.server.tables import TableConfigError

from .support import one_table


@pytest.mark.parametrize(("code", "places"), [("EUR", 2), ("USD", 2), ("SEK", 2), ("DKK", 2),
                                              ("GBP", 2), ("JPY", 0), ("KWD", 3)])  # fmt: skip
def test_minor_units_are_iso_4217s(code: str, places: int) -> None:
    assert digits(code) == places


def test_amounts_are_read_in_the_currencys_minor_unit() -> None:
    assert parse_amount("12.5", "EUR") == 1250
    assert parse_amount("300", "JPY") == 300
    assert parse_amount("1.005", "KWD") == 1005
    for text, code in (("3.5", "JPY"), ("1.001", "EUR"), ("-1", "EUR"), ("1e3", "EUR")):
        with pytest.raises(ValueError):
            parse_amount(text, code)
    with pytest.raises(ValueError, match="ISO 4217"):
        digits("EURO")


def test_a_table_has_its_chips_and_limits_in_each_of_its_currencies() -> None:
    table = load_tables()["table-i"]
    assert table.offered_currencies == ("USD", "EUR", "GBP", "SEK", "DKK", "JPY")
    yen = table.in_currency("JPY")
    assert yen is not None and yen.id == table.id and yen.rules == table.rules
    assert (yen.chips, yen.limits.min, yen.limits.max) == ((100, 500, 2500, 10000), 300, 3000)
    assert yen.rtp == table.rtp
    yen.check_bets(Bets({"banker": 300}))
    with pytest.raises(ServiceError) as low:
        yen.check_bets(Bets({"banker": 200}))
    assert low.value.code == "bet_below_table_min"
    assert table.in_currency("KWD") is None
    assert load_tables()["table-iii"].offered_currencies == ("USD",)


@pytest.mark.parametrize(
    ("stake", "code", "words", "limit"),
    [(200, "bet_below_table_min", "below the table minimum ¥300", {"min": 300}),
     (3_100, "bet_above_table_max", "above the table maximum ¥3,000", {"max": 3_000})],
)  # fmt: skip
def test_a_stake_past_a_limit_is_refused_with_that_limit_in_the_tables_currency(
    stake: int, code: str, words: str, limit: dict[str, int]
) -> None:
    yen = load_tables()["table-i"].in_currency("JPY")
    assert yen is not None
    with pytest.raises(ServiceError) as refused:
        yen.check_bets(Bets({"banker": stake}))
    assert refused.value.code == code
    assert refused.value.message == f"the banker bet {format_amount(stake, 'JPY')} is {words}"
    details = {"bet": "banker", "stake": stake, **limit, "currency": "JPY"}
    assert list(refused.value.details.items()) == list(details.items())  # in this order


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ('[table.currencies.EURO]\nchips = ["1"]\nmin = "1"\nmax = "2"\n', "ISO 4217"),
        ('[table.currencies.USD]\nchips = ["1"]\nmin = "1"\nmax = "2"\n', "other than USD"),
        ('[table.currencies.JPY]\nchips = ["1.5"]\nmin = "1"\nmax = "2"\n', "JPY"),
        ('[table.currencies.EUR]\nchips = ["1"]\nmin = "1"\nmax = "2"\ncolor = "red"\n',
         "only chips"),
    ],
)  # fmt: skip
def test_a_bad_currency_section_is_refused(tmp_path: Path, extra: str, says: str) -> None:
    with pytest.raises(TableConfigError, match=says):
        load_tables(one_table(tmp_path, extra))


def test_a_player_banked_table_has_no_other_currency(tmp_path: Path) -> None:
    path = one_table(tmp_path, '[table.banked]\nseats = 2\n[table.currencies.EUR]\nchips = ["1"]\n'
                     'min = "1"\nmax = "2"\n')  # fmt: skip
    with pytest.raises(TableConfigError, match="player-banked"):
        load_tables(path)


# A side bet, and the table's limits in crowns without the side bet's.
SIDE = """[table.bets.player_pair]
min = "1"
max = "5"
[table.currencies.SEK]
chips = ["10", "50"]
min = "10"
max = "100"
"""


def test_a_tables_side_bets_have_their_limits_in_each_currency(tmp_path: Path) -> None:
    with pytest.raises(TableConfigError, match="same side bets"):
        load_tables(one_table(tmp_path, SIDE, "online-8deck-tie8"))
    crowns_too = '[table.currencies.SEK.bets.player_pair]\nmin = "10"\nmax = "50"\n'
    path = one_table(tmp_path, SIDE + crowns_too, "online-8deck-tie8")
    crowns = load_tables(path)["t"].in_currency("SEK")
    assert crowns is not None and crowns.bet_limits("player_pair").max == 5000
