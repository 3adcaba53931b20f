import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat.core import (
    BET_TYPES,
    PRESETS,
    PUSH,
    BetError,
    BetResult,
    Bets,
    Card,
    Lightning,
    Paytable,
    RuleSet,
    Shoe,
    bet_multiplier,
    deal_coup,
    format_money,
    get_rules,
    judge,
    parse_money,
    play_coup,
    settle,
)

SINGLE = get_rules("single-deck")
TIE9 = get_rules("online-6deck-tie9")
CLASSIC = get_rules("classic-8deck")
EZ = get_rules("ez-8deck")
NO_COMMISSION = get_rules("no-commission-8deck")

# Stacked coups, cards in deal order (P, B, P, B, then third cards).
BANKER_NATURAL_9 = "2h 9d 3h Kd"  # player 5, banker 9
PLAYER_NATURAL_9 = "9h 2d Kh 3d"  # player 9, banker 5
NATURAL_TIE = "9h 9d Kh Kd"  # 9:9
PLAYER_PAIR_WINS_4_0 = "Kh 2d Ks 3d 4c 5c"  # P Kh Ks 4c = 4, B 2d 3d 5c = 0
BOTH_PERFECT_PAIRS = "Kh 2d Kh 2d 4c 5c"  # P Kh Kh 4c = 4, B 2d 2d 5c = 9
PLAYER_WINS_BY_9 = "2h Kd 2s Qd 5c Jc"  # P 2 2 5 = 9 (a pair), B K Q J = 0
BANKER_THREE_CARD_7 = "Th Kd 6s 2d 5c"  # P 6 stands, B K 2 5 = 7
PLAYER_THREE_CARD_8 = "2h Kd 3s Qd 3c Kc"  # P 2 3 3 = 8, B 0
BANKER_WINS_WITH_6 = "Th 2d Ks 4d Kc"  # P 0 draws K = 0, B 6 stands


def coup(cards: str):
    return play_coup(Card.parse_many(cards))


def returned(rules: RuleSet, cards: str, **stakes: int) -> dict[str, int]:
    return {b.bet: b.returned for b in settle(rules, Bets(stakes), coup(cards)).bets}


def test_a_fifty_cent_banker_win_returns_ninety_seven_cents():
    # Seed 002: 0.50 on banker returns 0.97, the 0.975 rounded down to the cent.
    line = settle(SINGLE, Bets(banker=50), coup(BANKER_NATURAL_9)).bets[0]
    assert line.result is BetResult.WIN
    assert line.returned == 97


def test_player_win_pays_one_to_one():
    assert settle(SINGLE, Bets(player=500), coup(PLAYER_NATURAL_9)).returned == 1000


@pytest.mark.parametrize(("rules", "expected"), [(SINGLE, 900), (TIE9, 1000)])
def test_tie_pays_the_rule_sets_odds_to_one(rules, expected):
    assert settle(rules, Bets(tie=100), coup(NATURAL_TIE)).returned == expected


def test_player_and_banker_bets_push_on_a_tie():
    settlement = settle(SINGLE, Bets(player=300, banker=200, tie=100), coup(NATURAL_TIE))
    results = {b.bet: (b.result, b.returned) for b in settlement.bets}
    assert results == {
        "player": (BetResult.PUSH, 300),
        "banker": (BetResult.PUSH, 200),
        "tie": (BetResult.WIN, 900),
    }
    assert settlement.net == 800


def test_losing_bets_return_nothing():
    settlement = settle(SINGLE, Bets(player=300, tie=100), coup(BANKER_NATURAL_9))
    assert [b.result for b in settlement.bets] == [BetResult.LOSE, BetResult.LOSE]
    assert settlement.returned == 0
    assert settlement.net == -400


def test_only_placed_bets_are_settled():
    assert [b.bet for b in settle(SINGLE, Bets(tie=5), coup(PLAYER_NATURAL_9)).bets] == ["tie"]


@pytest.mark.parametrize(
    "stakes", [{"player": -1}, {"banker": 1.5}, {"tie": True}, {"pair": 1}, {"Player": 5}]
)
def test_bad_stakes_are_refused(stakes):
    with pytest.raises(BetError):
        Bets(stakes)


def test_bets_are_a_canonically_ordered_hashable_mapping_without_zero_stakes():
    bets = Bets({"small": 100, "tie": 0}, player_pair=50, banker=200)
    assert list(bets) == ["banker", "player_pair", "small"]
    assert bets == Bets(banker=200, small=100, player_pair=50)
    assert hash(bets) == hash(Bets(banker=200, small=100, player_pair=50))
    assert bets.stake("tie") == 0 and bets.total == 350 and bets.side
    assert not Bets(player=5).side


def test_a_bet_the_game_does_not_offer_is_refused():
    with pytest.raises(BetError, match="does not offer 'dragon7'"):
        settle(CLASSIC, Bets(dragon7=100), coup(BANKER_NATURAL_9))
    with pytest.raises(BetError, match="perfect_pair"):
        settle(SINGLE, Bets(perfect_pair=100), coup(BANKER_NATURAL_9))


def test_pairs_are_judged_on_the_first_two_cards_by_rank():
    assert returned(CLASSIC, PLAYER_PAIR_WINS_4_0, player_pair=100, banker_pair=100) == {
        "player_pair": 1200,
        "banker_pair": 0,
    }
    # The banker's K-Q is no pair, though both count 0.
    assert returned(CLASSIC, PLAYER_WINS_BY_9, banker_pair=100, player_pair=100) == {
        "player_pair": 1200,
        "banker_pair": 0,
    }
    assert returned(CLASSIC, BANKER_NATURAL_9, either_pair=100)["either_pair"] == 0
    assert returned(CLASSIC, PLAYER_PAIR_WINS_4_0, either_pair=100)["either_pair"] == 600


def test_perfect_pair_pays_25_for_one_hand_and_200_for_both():
    assert returned(CLASSIC, PLAYER_PAIR_WINS_4_0, perfect_pair=100)["perfect_pair"] == 0
    assert returned(CLASSIC, "Kh 2d Kh 3d 4c 5c", perfect_pair=100)["perfect_pair"] == 2600
    assert returned(CLASSIC, BOTH_PERFECT_PAIRS, perfect_pair=100)["perfect_pair"] == 20100


def test_dragon_bonus_pays_natural_wins_pushes_natural_ties_and_pays_by_margin():
    assert returned(CLASSIC, PLAYER_NATURAL_9, player_dragon=100, banker_dragon=100) == {
        "player_dragon": 200,
        "banker_dragon": 0,
    }
    assert returned(CLASSIC, NATURAL_TIE, player_dragon=100, banker_dragon=100) == {
        "player_dragon": 100,
        "banker_dragon": 100,
    }
    assert returned(CLASSIC, PLAYER_WINS_BY_9, player_dragon=100)["player_dragon"] == 3100
    assert returned(CLASSIC, PLAYER_THREE_CARD_8, player_dragon=100)["player_dragon"] == 1100
    # A non-natural win by 4 pays 1:1; by 1 it loses.
    assert returned(CLASSIC, PLAYER_PAIR_WINS_4_0, player_dragon=100)["player_dragon"] == 200
    assert returned(CLASSIC, BANKER_THREE_CARD_7, banker_dragon=100)["banker_dragon"] == 0


def test_big_and_small_count_the_cards_dealt():
    # Small (4 cards) pays 1.5:1, Big (5 or 6) 0.54:1, rounded down to the cent.
    assert returned(CLASSIC, NATURAL_TIE, big=100, small=100) == {"big": 0, "small": 250}
    assert returned(CLASSIC, PLAYER_WINS_BY_9, big=101, small=100) == {"big": 155, "small": 0}


def test_ez_banker_pushes_a_three_card_7_and_dragon_7_pays_40():
    assert returned(EZ, BANKER_THREE_CARD_7, banker=100, dragon7=100) == {
        "banker": 100,
        "dragon7": 4100,
    }
    # Otherwise the EZ banker pays 1:1 with no commission.
    assert returned(EZ, BANKER_NATURAL_9, banker=100, dragon7=100) == {"banker": 200, "dragon7": 0}


def test_ez_panda_8_pays_25_on_a_player_three_card_8():
    assert returned(EZ, PLAYER_THREE_CARD_8, panda8=100)["panda8"] == 2600
    assert returned(EZ, "8h Kd Ks Qd", panda8=100)["panda8"] == 0  # a natural 8 is two cards


def test_no_commission_banker_pays_half_on_a_6_and_super_6_pays_12():
    assert returned(NO_COMMISSION, BANKER_WINS_WITH_6, banker=100, super6=100) == {
        "banker": 150,
        "super6": 1300,
    }
    assert returned(NO_COMMISSION, BANKER_NATURAL_9, banker=101, super6=100) == {
        "banker": 202,
        "super6": 0,
    }
    # A classic banker win with 6 pays 19:20 like any other.
    assert returned(CLASSIC, BANKER_WINS_WITH_6, banker=100)["banker"] == 195


def test_a_pay_table_prices_only_its_bets_lines():
    with pytest.raises(BetError):
        Paytable("big", (("small", Fraction(3, 2)),))
    with pytest.raises(BetError):
        Paytable("big", (("big", Fraction(0)),))
    with pytest.raises(BetError):
        Paytable("tiger", (("tiger", Fraction(1)),))


def test_every_line_a_judge_names_is_one_of_its_bets_lines():
    shoe = Shoe.shuffled(8, random.Random(7))
    for _ in range(70):
        dealt = deal_coup(shoe)
        every = Bets({name: 1 for name in BET_TYPES})
        for (name, _), line in zip(every.placed(), judge(every, dealt), strict=True):
            assert line is None or line in BET_TYPES[name].lines


# No deadline: an 8-deck shuffle per example, on a busy machine, is no failure.
@settings(deadline=None)
@given(
    st.sampled_from(PRESETS),
    st.randoms(use_true_random=False),
    st.integers(0, 10**9),
)
def test_settlement_never_creates_or_loses_a_cent(rules, rng, stake):
    shoe = Shoe.shuffled(rules.decks, rng)
    dealt = deal_coup(shoe)
    # A multiplier table takes stakes whose fee is whole cents, and deals multiplier cards:
    # some of the coup's own cards, so that they count.
    unit = 1 if rules.multipliers is None else rules.multipliers.fee_unit
    bets = Bets({name: (stake + i) * unit for i, name in enumerate(rules.bets)})
    cards = list(dict.fromkeys(dealt.cards_in_deal_order))
    lightning = [Lightning(card, rng.choice((2, 3, 8))) for card in cards[: rng.randint(1, 5)]]
    settlement = settle(rules, bets, dealt, lightning if unit > 1 else ())
    assert settlement.staked == bets.total
    for line in settlement.bets:
        assert type(line.returned) is int
        table = rules.paytable(line.bet)
        pay = table.pay(line.line) if table.pays_on(line.line) else None
        multiplier = bet_multiplier(line.bet, dealt, lightning) if unit > 1 else 1
        assert line.multiplier == (multiplier if line.result is BetResult.WIN else 1)
        assert line.fee * unit == (line.stake if unit > 1 else 0)
        exact: Fraction = {  # type: ignore[assignment]
            BetResult.WIN: line.stake * (1 + (pay or 0) * multiplier),
            BetResult.PUSH: Fraction(line.stake),
            BetResult.LOSE: Fraction(0),
        }[line.result]
        assert (line.result is BetResult.PUSH) == (table.pays_on(line.line) and pay is PUSH)
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
