from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.core import (
    PRESETS,
    BetError,
    BetKind,
    BetResult,
    Bets,
    Outcome,
    format_money,
    get_rules,
    parse_money,
    settle,
)

SINGLE = get_rules("single-deck")
TIE9 = get_rules("online-6deck-tie9")


def test_a_fifty_cent_banker_win_returns_ninety_seven_cents():
    # Seed 002: 0.50 on banker returns 0.97, the 0.975 rounded down to the cent.
    line = settle(SINGLE, Bets(banker=50), Outcome.BANKER).bets[0]
    assert line.result is BetResult.WIN
    assert line.returned == 97


def test_player_win_pays_one_to_one():
    assert settle(SINGLE, Bets(player=500), Outcome.PLAYER).returned == 1000


@pytest.mark.parametrize(("rules", "returned"), [(SINGLE, 900), (TIE9, 1000)])
def test_tie_pays_the_rule_sets_odds_to_one(rules, returned):
    assert settle(rules, Bets(tie=100), Outcome.TIE).returned == returned


def test_player_and_banker_bets_push_on_a_tie():
    settlement = settle(SINGLE, Bets(player=300, banker=200, tie=100), Outcome.TIE)
    results = {b.kind: (b.result, b.returned) for b in settlement.bets}
    assert results == {
        BetKind.PLAYER: (BetResult.PUSH, 300),
        BetKind.BANKER: (BetResult.PUSH, 200),
        BetKind.TIE: (BetResult.WIN, 900),
    }
    assert settlement.net == 800


def test_losing_bets_return_nothing():
    settlement = settle(SINGLE, Bets(player=300, tie=100), Outcome.BANKER)
    assert [b.result for b in settlement.bets] == [BetResult.LOSE, BetResult.LOSE]
    assert settlement.returned == 0
    assert settlement.net == -400


def test_only_placed_bets_are_settled():
    assert [b.kind for b in settle(SINGLE, Bets(tie=5), Outcome.PLAYER).bets] == [BetKind.TIE]


@pytest.mark.parametrize("stakes", [{"player": -1}, {"banker": 1.5}, {"tie": True}, {"pair": 1}])
def test_bad_stakes_are_refused(stakes):
    with pytest.raises(BetError):
        Bets.from_mapping(stakes)


@given(
    st.sampled_from(PRESETS),
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    st.sampled_from(list(Outcome)),
)
def test_settlement_never_creates_or_loses_a_cent(rules, player, banker, tie, winner):
    bets = Bets(player=player, banker=banker, tie=tie)
    settlement = settle(rules, bets, winner)
    assert settlement.staked == bets.total
    for line in settlement.bets:
        assert type(line.returned) is int
        pays = {
            BetKind.PLAYER: rules.player_pays,
            BetKind.BANKER: rules.banker_win_multiplier,
            BetKind.TIE: rules.tie_pays,
        }[line.kind]
        exact = {
            BetResult.WIN: line.stake * (1 + pays),
            BetResult.PUSH: Fraction(line.stake),
            BetResult.LOSE: Fraction(0),
        }[line.result]
        # Rounded down to the cent, never by a whole cent or more.
        assert 0 <= exact - line.returned < 1


def test_money_is_read_and_written_in_currency_units():
    assert parse_money("250.00") == 25000
    assert parse_money("0.5") == 50
    assert format_money(97) == "0.97"
    with pytest.raises(ValueError):
        parse_money("1.005")
    with pytest.raises(ValueError):
        parse_money("-3")
