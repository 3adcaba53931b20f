"""A coup: one deal of baccarat, a pure function of the cards it is dealt from."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import Card
from .shoe import Shoe, ShoeEmpty
from .tableau import banker_draws, hand_score, is_natural, player_draws


class Outcome(enum.Enum):
    """Which hand won the coup."""

    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


@dataclass(frozen=True, slots=True)
class Hand:
    """The cards of one hand in the order they were dealt."""

    cards: tuple[Card, ...]
    # Scored once, when the hand is made: settling a round's bets reads them many times.
    #: Score of the first two cards (the x of ``x:y``).
    two_card_score: int = field(init=False, repr=False, compare=False)
    #: Final score (the y of ``x:y``).
    score: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        values = [c.value for c in self.cards]
        object.__setattr__(self, "two_card_score", hand_score(values[:2]))
        object.__setattr__(self, "score", hand_score(values))

    @property
    def scores(self) -> tuple[int, int]:
        """``(two-card score, final score)``."""
        return self.two_card_score, self.score

    @property
    def score_text(self) -> str:
        """The score as shown on the table: ``x:y``."""
        return f"{self.two_card_score}:{self.score}"

    def to_json(self) -> dict[str, Any]:
        return {"cards": [str(c) for c in self.cards], "scores": list(self.scores)}


@dataclass(frozen=True, slots=True)
class Coup:
    """The result of one deal: both hands, the winner, and whether a natural stopped it."""

    player: Hand
    banker: Hand

    @property
    def winner(self) -> Outcome:
        p, b = self.player.score, self.banker.score
        if p > b:
            return Outcome.PLAYER
        if b > p:
            return Outcome.BANKER
        return Outcome.TIE

    @property
    def natural(self) -> bool:
        """Either hand had a two-card 8 or 9."""
        return is_natural(self.player.two_card_score) or is_natural(self.banker.two_card_score)

    @property
    def cards_used(self) -> int:
        return len(self.player.cards) + len(self.banker.cards)

    @property
    def cards_in_deal_order(self) -> tuple[Card, ...]:
        """P, B, P, B, then the player's third card, then the banker's."""
        p, b = self.player.cards, self.banker.cards
        return (p[0], b[0], p[1], b[1], *p[2:], *b[2:])

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player.to_json(),
            "banker": self.banker.to_json(),
            "winner": self.winner.value,
            "natural": self.natural,
            "cards_used": self.cards_used,
        }


def _deal(draw: Callable[[], Card]) -> Coup:
    # Deal order: player, banker, player, banker (SPEC section 1).
    p1, b1, p2, b2 = draw(), draw(), draw(), draw()
    player = [p1, p2]
    banker = [b1, b2]
    p_score = hand_score([p1.value, p2.value])
    b_score = hand_score([b1.value, b2.value])
    if not (is_natural(p_score) or is_natural(b_score)):
        player_third: int | None = None
        if player_draws(p_score):
            card = draw()
            player.append(card)
            player_third = card.value
        if banker_draws(b_score, player_third):
            banker.append(draw())
    return Coup(Hand(tuple(player)), Hand(tuple(banker)))


def deal_coup(shoe: Shoe) -> Coup:
    """Deal one coup from the top of the shoe, advancing it by the cards used."""
    return _deal(shoe.draw)


def play_coup(cards: Sequence[Card]) -> Coup:
    """The coup that a stack starting with ``cards`` deals (extra cards are not used)."""
    it: Iterator[Card] = iter(cards)

    def draw() -> Card:
        try:
            return next(it)
        except StopIteration:
            raise ShoeEmpty("too few cards to complete the coup") from None

    return _deal(draw)
