"""A player-banked seat's own seed: both participants contribute, both can verify.

When a player and a banker form a pair at a seat, the server commits a new server seed for
the pair (``form``), shown to both before either has given a client seed. Each then sets
their client seed (``set_client_seed``: the browser makes a fresh one), until the pair's
first deal, which fixes them: one the participant did not set is made by the server there
(its source "server", named in their export). Every round of the pair is a fresh shuffle of
the seed with the next nonce, and the client seed ``fairness.history.seat_client_seed``:
the banker's and the player's, in that order. When the pair ends (either leaves) the seed is
revealed to both with the nonces it gave out (``end``): each participant's export holds
every round of the pair, and verifies them all, nonces included.
"""

from __future__ import annotations

from dataclasses import dataclass

from baccarat.core import RuleSet, Shoe
from baccarat.fairness import new_client_seed
from baccarat.fairness.history import seat_client_seed
from baccarat.server import seeds
from baccarat.server.db.lookup import Lookup
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import ShoeFactory
from baccarat.server.errors import ServiceError
from baccarat.server.kinds.banked.seats import ROLES, Seat
from baccarat.server.play.round import Shuffle


def form(uow: UnitOfWork, seat: Seat) -> None:
    """Both roles are held and the pair has no seed yet: commit one for it."""
    if seat.seed_id is not None or seat.player_id is None or seat.banker_id is None:
        return
    assert seat.mode is not None
    seat.seed_id = seeds.new_seed(uow, seat.player_id, seat.mode, seat_id=seat.id)[0]
    seat.seed_nonce = 0
    seat.client_seeds = {}


# The seat's seed (sealed) and its commitment, by the seat (none before it has a seed): its
# shuffle reads it, a deal asks for it ahead (``Lookup.ahead``).
SEED: Lookup[Seat] = Lookup(
    "SELECT server_seed, commitment FROM fairness_seeds WHERE id = :id",
    params=lambda seat: {"id": seat.seed_id},
    kept=lambda uow, seat: seat.seed_id is None,
)


def end(uow: UnitOfWork, seat: Seat) -> None:
    """The pair ends: its seed is revealed, with the nonces it gave out."""
    if seat.seed_id is None:
        return
    row = SEED.one(uow, seat)
    assert row is not None
    # Revealed, the seed is public: it is kept as it is from now on.
    uow.run(
        "UPDATE fairness_seeds SET retired_us = :now, revealed_us = :now, nonces_used = :used, "
        "undealt_shoes = '[]', server_seed = :seed WHERE id = :id",
        {"now": uow.now, "used": seat.seed_nonce, "seed": seeds.open_seed(uow, *row),
         "id": seat.seed_id},
    )  # fmt: skip
    seat.seed_id, seat.seed_nonce, seat.client_seeds = None, 0, {}


def check_open(seat: Seat) -> None:
    """Raise unless the pair's client seeds may still be set (a seed, no deal yet)."""
    if seat.seed_id is None:
        raise ServiceError(
            "no_seat_seed", "the seat's seed is committed when both roles are seated",
            seat=seat.id,
        )  # fmt: skip
    if seat.seed_nonce:
        raise ServiceError(
            "client_seed_fixed",
            "the client seeds of this seat were fixed by its first deal; they hold until "
            "the seat ends",
            seat=seat.id,
        )


def set_client_seed(seat: Seat, role: str, client_seed: str) -> None:
    """A participant's client seed for the pair's rounds (before the first deal)."""
    seeds.check_client_seed(client_seed)
    check_open(seat)
    seat.client_seeds[role] = {"seed": client_seed, "source": "client"}


def fix(seat: Seat) -> dict[str, dict[str, str]]:
    """Both client seeds, the server's for a role that set none (at the first deal)."""
    for role in ROLES:
        seat.client_seeds.setdefault(role, {"seed": new_client_seed(), "source": "server"})
    return seat.client_seeds


@dataclass(frozen=True, slots=True)
class SeatShuffle:
    """A fresh shuffle of the seat's seed, with the next nonce and both client seeds."""

    seat: Seat

    def shuffle(self, uow: UnitOfWork, shoes: ShoeFactory, rules: RuleSet, mode: str) -> Shuffle:
        seat = self.seat
        assert seat.seed_id is not None
        both = fix(seat)
        client_seed = seat_client_seed(both["banker"]["seed"], both["player"]["seed"])
        row = SEED.one(uow, seat)
        assert row is not None
        server_seed, committed = seeds.open_seed(uow, row[0], row[1]), row[1]
        nonce = seat.seed_nonce
        seat.seed_nonce += 1
        shoe = shoes(rules, server_seed, client_seed, nonce, None)
        return Shuffle(shoe, seat.seed_id, committed, client_seed, nonce, None, shoe.position,
                       both["player"]["source"])  # fmt: skip

    def dealt(self, uow: UnitOfWork, shoe: Shoe, mode: str) -> None:
        return None
