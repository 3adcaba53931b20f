"""The arithmetic of player-banked tables (SPEC §7, seed 000 "Spielen als Geber"), and the
default tables that carry it."""

from __future__ import annotations

import doctest
from fractions import Fraction

import pytest

from baccarat.core import Bets, Card, Coup, Outcome, get_rules, play_coup
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.banked import terms as banking
from baccarat.server.kinds.banked.bank import PlayerBank
from baccarat.server.kinds.banked.terms import (
    FEE_RATE,
    exposure,
    fee_for,
    points_for,
    seed_min_balance,
    terms_of,
)
from baccarat.server.play.round import Stake, settle_stake
from baccarat.server.tables import TableConfigError

RULES = get_rules("online-6deck-tie9")
# A coup of each outcome: seed 000's example (player 3 to 0), a banker natural 9, a tie of 8s.
COUPS = {
    Outcome.PLAYER: play_coup(Card.parse_many("Td Kh 3s Kd Tc Qh")),
    Outcome.BANKER: play_coup(Card.parse_many("2h 9d 3h Kd")),
    Outcome.TIE: play_coup(Card.parse_many("Kh Kd 8s 8c")),
}


def banked(bets: Bets, coup: Coup) -> tuple[int, int, int]:
    """What a player-banked round returns to the player, its fee and the banker's net."""
    settled = settle_stake(RULES, Stake(1, bets), coup)
    bank = PlayerBank("seat", 2, 0, FEE_RATE)
    return settled.returned, bank.fee(settled), bank.banker_net([settled])


def test_the_docstring_examples_hold() -> None:
    assert doctest.testmod(banking).failed == 0


def test_the_help_pages_example_a_lost_ten_dollar_bet_pays_the_banker_nine_eighty_five() -> None:
    # Seed 000: $10 on the Banker, the player's hand wins 3 to 0: 10 - 1.5% x 10 = 9.85.
    assert COUPS[Outcome.PLAYER].winner is Outcome.PLAYER
    assert banked(Bets(banker=1_000), COUPS[Outcome.PLAYER]) == (0, 15, 985)


@pytest.mark.parametrize(
    ("stake", "fee"),
    [(100, 2), (200, 3), (500, 8), (1_000, 15), (1_300, 20), (2_000, 30), (25_000, 375),
     (133, 2), (0, 0)],
)  # fmt: skip
def test_the_fee_is_rounded_up_to_the_cent_in_the_houses_favour(stake: int, fee: int) -> None:
    assert fee_for(stake) == fee
    assert fee >= stake * Fraction(3, 200) > fee - 1 or stake == 0


def test_the_banker_pays_winnings_and_keeps_the_commission_on_banker_bets() -> None:
    # Banker bets pay 19:20: the banker pays 9.50 on $10 and keeps the 0.50 commission.
    assert banked(Bets(banker=1_000), COUPS[Outcome.BANKER]) == (1_950, 15, -965)
    # A tie pays 9:1 and pushes the others: the fee is still on every bet placed.
    assert banked(Bets(player=1_000, tie=500), COUPS[Outcome.TIE]) == (
        1_000 + 5_000, 23, 1_500 - 6_000 - 23,
    )  # fmt: skip


@pytest.mark.parametrize(("stake", "points"), [(99, 0), (100, 1), (1_250, 12), (25_000, 250)])
def test_a_point_per_whole_dollar_of_the_rounds_stake(stake: int, points: int) -> None:
    assert points_for(stake) == points


def test_the_exposure_is_the_worst_round_for_the_banker_with_its_fee() -> None:
    # Table II: a $50 tie at 9:1 beside $50 on Player and $50 on Banker (both pushed):
    # 9 x 50 + 1.5% x 150 = 452.25.
    assert exposure(RULES, 5_000, 5_000) == 45_225
    # Brute force over every stake in whole dollars agrees (table I, $2-20).
    worst = 0
    for player in [0, *range(200, 2_001, 100)]:
        for banker in [0, *range(200, 2_001, 100)]:
            for tie in [0, *range(200, 2_001, 100)]:
                bets = Bets(player=player, banker=banker, tie=tie)
                if bets.total:
                    for coup in COUPS.values():
                        worst = max(worst, -banked(bets, coup)[2])
    assert exposure(RULES, 2_000, 2_000) == worst == 18_090


def test_the_default_tables_are_seed_000s_tables_i_to_iii_as_player_banked_variants() -> None:
    tables = load_tables()
    banked = {t.id: t for t in tables.values() if t.kind == "banked"}
    assert list(banked) == ["banked-i", "banked-ii", "banked-iii"]
    for plain, variant in zip(("table-i", "table-ii", "table-iii"), banked.values(), strict=True):
        assert variant.rules == tables[plain].rules and variant.limits == tables[plain].limits
        assert variant.chips == tables[plain].chips
    expected = {"banked-i": (0, 20_000), "banked-ii": (50, 50_000), "banked-iii": (250, 250_000)}
    for table_id, (points, balance) in expected.items():
        t = terms_of(banked[table_id])
        assert (t.min_points, t.min_balance) == (points, balance)
        # Never below the help page's formula, nor below what a round can cost.
        assert t.min_balance >= seed_min_balance(banked[table_id].limits.max)
        assert t.min_balance >= t.exposure
    # The help page's example: table II needs 50 points and $500 (9 x 50 + 0.75 = 450.75).
    assert seed_min_balance(5_000) == 45_075


def test_a_configured_minimum_below_the_formula_is_raised_to_it(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "tables.toml"
    path.write_text(
        '[[table]]\nid = "b"\nrules = "online-6deck-tie9"\nchips = ["1"]\nmin = "1"\n'
        'max = "10"\nbanked = { seats = 2, min_points = 5, min_balance = "1" }\n'
    )
    table = load_tables(path)["b"]
    assert terms_of(table).min_balance == exposure(RULES, 1_000, 1_000) == 9_045
    assert table.to_json()["banked"]["min_banker_balance"] == 9_045


@pytest.mark.parametrize(
    "banked",
    ['{ seats = 0 }', '{ seats = -1 }', '{ min_points = "5" }', '"yes"',
     '{ min_balance = "-5" }'],
)  # fmt: skip
def test_a_bad_banked_table_is_refused_with_its_reason(tmp_path: object, banked: str) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "tables.toml"
    path.write_text(
        '[[table]]\nid = "b"\nrules = "online-6deck-tie9"\nchips = ["1"]\nmin = "1"\n'
        f'max = "10"\nbanked = {banked}\n'
    )
    with pytest.raises(TableConfigError, match=r"banked|amount"):
        load_tables(path)


def test_a_cut_shoe_table_cannot_be_player_banked(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "tables.toml"
    path.write_text(
        '[[table]]\nid = "m"\nrules = "mini"\nchips = ["1"]\nmin = "1"\nmax = "10"\n'
        "banked = { seats = 1 }\n"
    )
    with pytest.raises(TableConfigError, match="shuffles before every round"):
        load_tables(path)
