"""Who covers a shared coup's bets, and the table's shoe it is dealt from (once).

A bettor's stake left their balance when they placed it (at a multiplier table with the fee
taken with it), on a wallet that holds stakes in escrow (``shared_bet``: player -> escrow;
ours): the coup's posting (``shared_round``, one per bettor) takes it from escrow to the
house and pays what the bets return from the house.
On a wallet that holds nothing (an operator's: its bet call took the stake), the posting is
a house round's (the stake to the house, the return to the player). What the round moved in
the end is the house round's either way, which a void reverses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from baccarat.core import Lightning, RuleSet, Shoe, deal_coup
from baccarat.server import responsible
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import ShoeFactory
from baccarat.server.history import StoredRound
from baccarat.server.money import Money, Move
from baccarat.server.play.banks import house_posting, uncount
from baccarat.server.play.round import Dealer, Played, Settled, Shuffle

KIND = "shared_round"
NONCE = 0  # every shared shoe has a seed of its own: one shuffle, nonce 0
CUT = 0  # nobody cuts a shared shoe: the order is the derived one


@dataclass(frozen=True, slots=True)
class SharedBank:
    """The casino covers the bets of every bettor of a shared coup, whose stakes are in
    escrow (``escrowed``) or still theirs on a wallet that holds none."""

    escrowed: bool = True
    kind = KIND

    def admit(self, uow: UnitOfWork, mode: str, settled: Sequence[Settled]) -> None:
        # Every check was made when the bets were placed (their stakes held since, in escrow
        # or by the operator): the coup is settled for all its bettors, and counted in their
        # usage.
        for one in settled:
            responsible.count(uow, one.player_id, mode, one.wagered, -one.net)

    def unadmit(
        self, uow: UnitOfWork, mode: str, played_us: int, settled: Sequence[Settled]
    ) -> None:
        uncount(uow, mode, played_us, settled)

    def money(self, mode: str, settled: Sequence[Settled]) -> list[Money]:
        if not self.escrowed:
            return [house_posting(one) for one in settled]
        return [
            Money((
                Move("escrow", "house", one.stake),
                *((Move("escrow", "house", one.fee),) if one.fee else ()),
                Move("house", one.player_id, one.returned),
            ))
            for one in settled
        ]  # fmt: skip

    def void_money(self, one: Settled) -> Money:
        return house_posting(one)  # what the round moved in the end: a house round's

    def record(self, uow: UnitOfWork, mode: str, played: Sequence[Played]) -> None:
        return None

    def unrecord(self, uow: UnitOfWork, mode: str, rounds: Sequence[StoredRound]) -> None:
        return None


SHARED = SharedBank()


@dataclass(frozen=True, slots=True)
class TableShoe:
    """A shared table's shoe, where its next coup is dealt from (``position``)."""

    server_seed: str
    commitment: str
    client_seed: str
    position: int

    def lightning(self, dealer: Dealer, rules: RuleSet) -> tuple[Lightning, ...]:
        """The next coup's multiplier cards at a multiplier table (none elsewhere), drawn
        from the shoe's seeds and the coup's position in it."""
        terms = rules.multipliers
        if terms is None:
            return ()
        return dealer.lightning(terms, self.server_seed, self.client_seed, NONCE, self.position)

    def deal(
        self, shoes: ShoeFactory, rules: RuleSet, lightning: tuple[Lightning, ...] = ()
    ) -> DealtCoup:
        """The coup, dealt from where the shoe is: the one deal of a shared coup (with its
        multiplier cards, drawn before: ``lightning``)."""
        shoe = shoes(rules, self.server_seed, self.client_seed, NONCE, CUT)
        shoe.position = self.position
        coup = deal_coup(shoe)
        return DealtCoup(Shuffle(shoe, None, self.commitment, self.client_seed, NONCE, CUT,
                                 self.position, coup=coup, lightning=lightning))  # fmt: skip


@dataclass(frozen=True, slots=True)
class DealtCoup:
    """A shared coup dealt (a ``round.ShoeSource``): every batch of its bettors (each mode's,
    each operator's) is settled on these cards; the round deals no other."""

    shuffled: Shuffle  # its ``coup`` dealt, its ``shoe`` past it

    def shuffle(self, uow: UnitOfWork, shoes: ShoeFactory, rules: RuleSet, mode: str) -> Shuffle:
        return self.shuffled

    def dealt(self, uow: UnitOfWork, shoe: Shoe, mode: str) -> None:
        return None  # the table moves its shoe on once, for every batch (``clock``)
