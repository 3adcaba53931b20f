"""Multiplier baccarat's rules: terms, multiplier cards, the multiplier of each bet, the fee
and the settlement (stacked coups)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from baccarat.core import (
    BetError,
    BetResult,
    Bets,
    Card,
    Lightning,
    MultiplierError,
    MultiplierTerms,
    RuleSet,
    RuleSetError,
    bet_multiplier,
    fee_of,
    get_rules,
    multiplier_terms,
    play_coup,
    settle,
    validate,
)
from baccarat.core.paytable import PLAYER_DRAGON

MULTIPLIER = get_rules("multiplier")
CLASSIC = get_rules("classic-8deck")


def cards(text: str) -> list[Lightning]:
    """``"Ah:3 Kd:8"``: multiplier cards."""
    return [Lightning(Card.parse(c), int(m)) for c, m in (t.split(":") for t in text.split())]


def test_the_published_terms_are_exact_fractions_that_add_up() -> None:
    terms = MULTIPLIER.multipliers
    assert terms is not None
    assert terms.to_json() == {
        "fee": "1/5",
        "counts": {"1": "1/10", "2": "1/5", "3": "2/5", "4": "1/5", "5": "1/10"},
        "values": {"2": "1/4", "3": "1/4", "4": "3/10", "5": "1/10", "8": "1/10"},
    }
    assert MULTIPLIER.to_json()["multipliers"] == terms.to_json()
    assert "multipliers" not in CLASSIC.to_json()
    assert get_rules("lightning") is MULTIPLIER
    assert get_rules("multiplier-shoe").multipliers == terms
    assert MULTIPLIER.bets == ("player", "banker", "tie", "player_pair", "banker_pair")
    assert MULTIPLIER.paytable("tie").pay("tie") == 5
    assert MULTIPLIER.paytable("player_pair").pay("pair") == 9
    assert MULTIPLIER.banker_win_multiplier == Fraction(19, 20)


@pytest.mark.parametrize(
    ("counts", "values", "message"),
    [
        ({1: Fraction(1, 2)}, {2: Fraction(1)}, "add up to 1"),
        ({0: Fraction(1)}, {2: Fraction(1)}, "whole numbers 1 to 52"),
        ({1: Fraction(1)}, {1: Fraction(1)}, "whole numbers from 2"),
        ({1: Fraction(3, 2), 2: Fraction(-1, 2)}, {2: Fraction(1)}, "positive Fraction"),
        ({1: Fraction(1)}, {}, "at least one"),
    ],
)
def test_terms_that_cannot_be_are_refused(
    counts: dict[int, Fraction], values: dict[int, Fraction], message: str
) -> None:
    with pytest.raises(MultiplierError, match=message):
        multiplier_terms(Fraction(1, 5), counts, values)
    with pytest.raises(MultiplierError, match="increasing order"):
        MultiplierTerms(
            Fraction(1, 5), ((2, Fraction(1, 2)), (1, Fraction(1, 2))), ((2, Fraction(1)),)
        )


def test_a_multiplier_game_offers_only_bets_with_a_multiplier() -> None:
    with pytest.raises(RuleSetError, match="no player_dragon"):
        RuleSet("x", 8, side_bets=(PLAYER_DRAGON,), multipliers=MULTIPLIER.multipliers)
    with pytest.raises(RuleSetError, match="pays one way"):
        RuleSet("x", 8, banker_pays_with_6=Fraction(1, 2), multipliers=MULTIPLIER.multipliers)


def test_multiplier_cards_read_and_write_json() -> None:
    one = Lightning(Card.parse("Ah"), 5)
    assert one.to_json() == {"card": "Ah", "multiplier": 5} and str(one) == "Ah x5"
    assert Lightning.from_json({"card": "Ah", "multiplier": 5}) == one
    for bad in ({"card": "Zz", "multiplier": 5}, {"card": "Ah", "multiplier": 1}, ["Ah", 5]):
        with pytest.raises(MultiplierError):
            Lightning.from_json(bad)
    with pytest.raises(MultiplierError, match="from 2"):
        Lightning(Card.parse("Ah"), True)


def test_a_card_twice_in_one_hand_multiplies_twice() -> None:
    coup = play_coup(Card.parse_many("Ah 3d Ah 4d Kc"))  # P Ah Ah Kc = 2, B 3d 4d = 7
    assert [str(c) for c in coup.player.cards] == ["Ah", "Ah", "Kc"]
    assert bet_multiplier("player", coup, cards("Ah:3")) == 9
    assert bet_multiplier("player_pair", coup, cards("Ah:3 Kc:8")) == 9
    assert bet_multiplier("player", coup, cards("Ah:3 Kc:8")) == 72
    assert bet_multiplier("banker", coup, cards("Ah:3")) == 1
    assert bet_multiplier("player", coup, ()) == 1
    # A player win with Ah twice (3x): 1:1 times 9; the pair 9:1 times 9.
    win = play_coup(Card.parse_many("Ah Kd Ah Qd 5c Jc"))  # P Ah Ah 5c = 7, B Kd Qd Jc = 0
    settled = settle(MULTIPLIER, Bets(player=100, player_pair=100), win, cards("Ah:3"))
    player, pair = settled.bets
    assert (player.result, player.multiplier, player.returned, player.fee) == (
        BetResult.WIN,
        9,
        100 + 900,
        20,
    )
    assert (pair.multiplier, pair.returned) == (9, 100 + 9 * 9 * 100)
    assert settled.fees == 40 and settled.net == 1000 + 8200 - 200 - 40
    assert (
        settle(MULTIPLIER, Bets(player=100), coup, cards("Ah:3")).bets[0].result is BetResult.LOSE
    )


def test_a_tie_multiplies_by_the_cards_of_both_hands() -> None:
    coup = play_coup(Card.parse_many("9h 9d Kh Kd"))  # natural tie 9:9
    settled = settle(MULTIPLIER, Bets(tie=100, player=100), coup, cards("9h:2 9d:5 Ks:8"))
    tie, player = settled.bets[1], settled.bets[0]
    assert (tie.multiplier, tie.returned) == (10, 100 + 5 * 10 * 100)
    # The player's bet pushes: its stake back, its fee kept; no multiplier on a push.
    assert (player.result, player.returned, player.multiplier, player.fee) == (
        BetResult.PUSH,
        100,
        1,
        20,
    )


def test_a_banker_win_pays_19_20_times_the_multiplier_rounded_once() -> None:
    coup = play_coup(Card.parse_many("2h 9d 3h Kd"))  # banker natural 9
    one = settle(MULTIPLIER, Bets(banker=15), coup, cards("9d:5")).bets[0]
    # 15 x 19/20 = 14.25: rounded first it would pay 14 x 5 = 70; once, after: 71.25 -> 71.
    assert one.returned == 15 + 71
    assert settle(MULTIPLIER, Bets(banker=15), coup).bets[0].returned == 15 + 14


def test_the_fee_is_a_fifth_of_a_stake_of_whole_fives() -> None:
    assert fee_of(MULTIPLIER, 500) == 100 and fee_of(CLASSIC, 500) == 0
    with pytest.raises(BetError, match="whole multiple of 5 minor units"):
        fee_of(MULTIPLIER, 501)
    with pytest.raises(BetError, match="whole multiple of 5"):
        validate(MULTIPLIER, Bets(player=500, tie=12))
    validate(MULTIPLIER, Bets(player=500, tie=10))
    validate(CLASSIC, Bets(player=501))
    with pytest.raises(BetError, match="no multiplier cards"):
        settle(CLASSIC, Bets(player=500), play_coup(Card.parse_many("9h 9d Kh Kd")), cards("9h:2"))
    with pytest.raises(MultiplierError, match="distinct"):
        settle(
            MULTIPLIER,
            Bets(player=5),
            play_coup(Card.parse_many("9h 9d Kh Kd")),
            cards("9h:2 9h:3"),
        )
