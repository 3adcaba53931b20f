"""The pure rules of Punto Banco: cards, shoe, tableau, coup, rule sets, bets, money."""

from .bets import BetError, BetKind, BetResult, Bets, BetSettlement, Settlement, settle, settle_bet
from .cards import Card, CardError, Rank, Suit, format_cards, new_deck, new_shoe_order
from .coup import Coup, Hand, Outcome, deal_coup, play_coup
from .money import MoneyError, Rounding, format_money, parse_money
from .rules import PRESETS, RuleSet, RuleSetError, ShufflePolicy, get_rules, rules_for_decks
from .shoe import MAX_DECKS, RandomSource, Shoe, ShoeEmpty, ShoeError, burn_count, fisher_yates
from .tableau import banker_draws, hand_score, is_natural, player_draws

__all__ = [
    "MAX_DECKS",
    "PRESETS",
    "BetError",
    "BetKind",
    "BetResult",
    "BetSettlement",
    "Bets",
    "Card",
    "CardError",
    "Coup",
    "Hand",
    "MoneyError",
    "Outcome",
    "RandomSource",
    "Rank",
    "Rounding",
    "RuleSet",
    "RuleSetError",
    "Settlement",
    "Shoe",
    "ShoeEmpty",
    "ShoeError",
    "ShufflePolicy",
    "Suit",
    "banker_draws",
    "burn_count",
    "deal_coup",
    "fisher_yates",
    "format_cards",
    "format_money",
    "get_rules",
    "hand_score",
    "is_natural",
    "new_deck",
    "new_shoe_order",
    "parse_money",
    "play_coup",
    "player_draws",
    "rules_for_decks",
    "settle",
    "settle_bet",
]
