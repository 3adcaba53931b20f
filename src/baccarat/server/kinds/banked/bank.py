"""A player covers the bets (SPEC §7, seed 000 "Spielen als Geber"): the ``Bank`` of a
player-banked round, for ``round.play`` and ``round.void``.

The bettors' stakes have been held in escrow since they were placed, and the banker's
exposure since the approval (``escrow``). The round's posting gives the banker the reserve
back and every stake; the banker pays each bettor what their bets return (core's one
settlement on the dealt cards, whatever the bet: the banker's result is the negation of the
bettors') and the casino its fee, 1.5% of each bettor's stakes rounded up. Loyalty points
go from the banker to the bettor, one per whole dollar staked. A void reverses what the
round moved in the end, fee and points included. The fee is the casino's revenue from the
round: it enters the daily aggregates (``daily.fee``), its void takes it off again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from baccarat.server import daily, responsible
from baccarat.server.currencies import HOME
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.history import StoredRound
from baccarat.server.kinds.banked.seats import add_points
from baccarat.server.kinds.banked.terms import fee_for, points_for
from baccarat.server.money import Money, Move
from baccarat.server.play.round import Played, Settled


@dataclass(frozen=True, slots=True)
class BankedResult:
    """What a played round recorded besides its rounds: the banker's balance after it, and
    the points each side gained (the banker's negative)."""

    banker_after: int
    banker_net: int
    player_points: int
    banker_points: int


@dataclass(slots=True)
class PlayerBank:
    """The banker of one seat covers the bets. Built for a deal (``fee_rate``), or from a
    recorded round for its void (``fees`` and ``points`` as recorded)."""

    seat_id: str
    banker_id: int
    reserve: int
    fee_rate: Fraction = Fraction(0)
    fees: dict[int, int] | None = None  # recorded, by bettor
    points: dict[int, tuple[int, int]] | None = None  # recorded (player's, banker's), by bettor
    banker_seed_source: str | None = None  # who set the banker's client seed of the deal
    recorded: BankedResult | None = field(default=None, init=False)
    kind: str = field(default="banked_round", init=False)

    def fee(self, one: Settled) -> int:
        if self.fees is not None:
            return self.fees[one.player_id]
        return fee_for(one.stake, self.fee_rate)

    def banker_net(self, settled: Sequence[Settled]) -> int:
        """The banker's result: the bettors' losses less their winnings, less the fees."""
        return sum(-one.net - self.fee(one) for one in settled)

    def admit(self, uow: UnitOfWork, mode: str, settled: Sequence[Settled]) -> None:
        for one in settled:
            responsible.admit_round(uow, one.player_id, mode, one.stake, one.returned)
        responsible.count(uow, self.banker_id, mode, 0, -self.banker_net(settled))

    def unadmit(
        self, uow: UnitOfWork, mode: str, played_us: int, settled: Sequence[Settled]
    ) -> None:
        for one in settled:
            responsible.uncount(uow, one.player_id, mode, played_us, one.stake, -one.net)
        responsible.uncount(uow, self.banker_id, mode, played_us, 0, -self.banker_net(settled))

    def money(self, mode: str, settled: Sequence[Settled]) -> list[Money]:
        # Each bettor's stakes, held in escrow, go to the banker, who pays what returns and
        # the fee; the banker's reserve comes back with the first posting.
        banker, postings = self.banker_id, []
        for i, one in enumerate(settled):
            moves = [Move("escrow", banker, self.reserve)] if i == 0 else []
            moves += [Move("escrow", banker, one.stake), Move(banker, one.player_id, one.returned),
                      Move(banker, "house", self.fee(one))]  # fmt: skip
            postings.append(Money(tuple(moves)))
        return postings

    def void_money(self, one: Settled) -> Money:
        # The holds came back in the round's posting: what it moved in the end is the stake
        # to the banker, what returned to the bettor, and the fee to the casino.
        banker = self.banker_id
        return Money((Move(one.player_id, banker, one.stake),
                      Move(banker, one.player_id, one.returned),
                      Move(banker, "house", self.fee(one))))  # fmt: skip

    def record(self, uow: UnitOfWork, mode: str, played: Sequence[Played]) -> None:
        banker = self.banker_id
        after = played[-1].posted.balances[banker]
        before = after - self.banker_net([p.settled for p in played])
        earned = lost = 0
        for r, one, posted in ((p.round, p.settled, p.posted) for p in played):
            daily.fee(uow, r.created_us, r.table_id, mode, self.fee(one), posted.currency)
            bettor = one.player_id
            points = points_for(one.stake)
            earned = add_points(uow, bettor, mode, points)
            lost = -add_points(uow, banker, mode, -points)
            uow.send(
                "INSERT INTO banked_rounds (round_id, round_seq, seat_id, mode, player_id, "
                "banker_id, fee, reserve, banker_before, banker_after, player_points, "
                "banker_points, created_us, banker_seed_source) VALUES (:id, :seq, :seat, :m, "
                ":p, :b, :fee, :reserve, :before, :after, :pp, :bp, :now, :source)",
                {
                    "id": r.id, "seq": r.seq, "seat": self.seat_id, "m": mode, "p": bettor,
                    "b": banker, "fee": self.fee(one), "reserve": self.reserve,
                    "before": before, "after": after, "pp": earned, "bp": lost, "now": uow.now,
                    "source": self.banker_seed_source,
                },
            )  # fmt: skip
        self.recorded = BankedResult(after, after - before, earned, -lost)

    def unrecord(self, uow: UnitOfWork, mode: str, rounds: Sequence[StoredRound]) -> None:
        assert self.points is not None and self.fees is not None
        for r, fee in zip(rounds, self.fees.values(), strict=True):
            # A player-banked table plays in HOME alone (``BankedKind.one_currency``).
            daily.fee(uow, r.created_us, r.table_id, mode, fee, HOME, sign=-1)
        for player_id, (player_points, banker_points) in self.points.items():
            add_points(uow, player_id, mode, -player_points)
            add_points(uow, self.banker_id, mode, banker_points)

    @classmethod
    def of_round(cls, uow: UnitOfWork, round_id: str) -> PlayerBank | None:
        """The bank of a recorded player-banked round (None: the house banked it)."""
        row = uow.one(
            "SELECT seat_id, banker_id, reserve, player_id, fee, player_points, banker_points "
            "FROM banked_rounds WHERE round_id = :id",
            {"id": round_id},
        )
        if row is None:
            return None
        seat_id, banker_id, reserve, player_id, fee, player_points, banker_points = row
        return cls(
            seat_id, int(banker_id), int(reserve), fees={int(player_id): int(fee)},
            points={int(player_id): (int(player_points), int(banker_points))},
        )  # fmt: skip
