"""The house tables: the casino covers the bets (``HOUSE``, the engine's ``HouseBank``), a
player's cut shoe (``CutShoe``, its state and its cut), and ``play_round``, the round of
``round.play``.

This is the hot path. It runs as one short write transaction of a handful of statements:
take the nonce (or lock the player's shoe), move the money in one conditional update of the
player's balance (refused unless the balance covers the whole stake), and record the ledger
transaction, its entries and the round. The house's balance is derived from its entries, so
rounds of different players share no row and never wait for each other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from baccarat.core import Bets, RuleSet, Shoe
from baccarat.server import history, responsible, seeds, switches
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import ShoeFactory
from baccarat.server.errors import ServiceError
from baccarat.server.history import StoredRound
from baccarat.server.ledger import check_mode, player_account
from baccarat.server.play.banks import HouseBank
from baccarat.server.play.round import (
    Dealer,
    FreshShuffle,
    Shuffle,
    Stake,
    play,
    prefetch,
)
from baccarat.server.profiles import Profile
from baccarat.server.profiles.rules import admit_house_round
from baccarat.server.tables import Table

__all__ = ["HOUSE", "HOUSE_ACTIONS", "CutShoe", "Dealer", "HouseBank", "ShoeState",
           "allowed_actions", "cut_shoe", "play_round", "round_answer", "shoe_state",
           "table_state"]  # fmt: skip


@dataclass(frozen=True, slots=True)
class ShoeState:
    """A player's cut shoe at a table, in a mode."""

    table_id: str
    mode: str
    cut_due: bool
    cards: int
    position: int
    cut_card: int | None
    nonce: int | None
    cut: int | None
    commitment: str | None

    @property
    def cards_left(self) -> int:
        return self.cards - self.position

    def to_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "mode": self.mode,
            "cut_due": self.cut_due,
            "cards": self.cards,
            "cards_left": 0 if self.cut_due else self.cards_left,
            "position": self.position,
            "cut_card": self.cut_card,
            "nonce": self.nonce,
            "cut": self.cut,
            "commitment": self.commitment,
        }


def _require_cut_shoe(table: Table) -> None:
    if not table.is_cut_shoe:
        raise ServiceError(
            "not_a_cut_shoe_table",
            f"table {table.id} shuffles before every round: there is no shoe to cut",
            table=table.id,
        )


def shoe_state(uow: UnitOfWork, player_id: int, table: Table, mode: str) -> ShoeState:
    check_mode(mode)
    _require_cut_shoe(table)
    row = uow.one(
        "SELECT sh.cards, sh.position, sh.cut_card, sh.nonce, sh.cut, sh.finished, s.commitment "
        "FROM shoes sh JOIN fairness_seeds s ON s.id = sh.seed_id "
        "WHERE sh.player_id = :p AND sh.table_id = :t AND sh.mode = :m",
        {"p": player_id, "t": table.id, "m": mode},
    )
    cards = table.rules.cards_per_shoe
    if row is None:
        return ShoeState(table.id, mode, True, cards, 0, None, None, None, None)
    cards, position, cut_card, nonce, cut, finished, committed = row
    return ShoeState(
        table.id, mode, bool(finished), int(cards), int(position), cut_card, int(nonce),
        int(cut), committed,
    )  # fmt: skip


def cut_shoe(
    uow: UnitOfWork, dealer: Dealer, player_id: int, table: Table, mode: str, cut: int
) -> ShoeState:
    """The player cuts a new shoe: it takes the next nonce of the cut shoes' seed and is
    dealt to its cut card."""
    check_mode(mode)
    _require_cut_shoe(table)
    size = table.rules.cards_per_shoe
    if type(cut) is not int or not 0 <= cut < size:
        raise ServiceError(
            "invalid_cut", f"cut the shoe at a position from 0 to {size - 1}", cut=cut, cards=size
        )
    key = {"p": player_id, "t": table.id, "m": mode}
    current = uow.one(
        "SELECT finished FROM shoes WHERE player_id = :p AND table_id = :t AND mode = :m"
        + uow.for_update,
        key,
    )
    if current is not None and not current[0]:
        raise ServiceError(
            "shoe_in_progress", "this shoe is still being dealt: no cut is due", table=table.id
        )
    drawn = seeds.take_shoe_nonce(uow, player_id, mode)
    shoe = dealer.shoes(table.rules, drawn.server_seed, drawn.client_seed, drawn.nonce, cut)
    values = key | {
        "seed": drawn.seed_id,
        "cs": drawn.client_seed,
        "nonce": drawn.nonce,
        "cut": cut,
        "pos": shoe.position,
        "cut_card": shoe.cut_card,
        "cards": len(shoe.cards),
        "now": uow.now,
        "source": drawn.client_seed_source,
    }
    if current is None:
        uow.run(
            "INSERT INTO shoes (player_id, table_id, mode, seed_id, client_seed, nonce, cut, "
            "position, start, cut_card, cards, finished, created_us, client_seed_source) "
            "VALUES (:p, :t, :m, :seed, :cs, :nonce, :cut, :pos, :pos, :cut_card, :cards, 0, "
            ":now, :source)",
            values,
        )
    else:
        uow.run(
            "UPDATE shoes SET seed_id = :seed, client_seed = :cs, nonce = :nonce, cut = :cut, "
            "position = :pos, start = :pos, cut_card = :cut_card, cards = :cards, "
            "finished = 0, created_us = :now, client_seed_source = :source "
            "WHERE player_id = :p AND table_id = :t AND mode = :m",
            values,
        )
    return shoe_state(uow, player_id, table, mode)


@dataclass(frozen=True, slots=True)
class CutShoe:
    """The player's cut shoe at a table, dealt on from where it stopped (its row locked)."""

    player_id: int
    table: Table

    def _key(self, mode: str) -> dict[str, Any]:
        return {"p": self.player_id, "t": self.table.id, "m": mode}

    def shuffle(self, uow: UnitOfWork, shoes: ShoeFactory, rules: RuleSet, mode: str) -> Shuffle:
        row = uow.one(
            "SELECT sh.seed_id, s.server_seed, s.commitment, sh.client_seed, sh.nonce, sh.cut, "
            "sh.position, sh.finished, sh.client_seed_source "
            "FROM shoes sh JOIN fairness_seeds s ON s.id = sh.seed_id "
            "WHERE sh.player_id = :p AND sh.table_id = :t AND sh.mode = :m" + uow.lock("sh"),
            self._key(mode),
        )
        if row is None or row[7]:
            raise ServiceError(
                "cut_required",
                "a new shoe waits for your cut: POST /api/tables/{id}/shoe with the position",
                table=self.table.id,
                mode=mode,
            )
        seed_id, sealed, committed, client_seed, nonce, cut, position, _, source = row
        # The shoe is rebuilt from its seeds (the order is cached) and set where it stopped.
        server_seed = seeds.open_seed(uow, sealed, committed)
        shoe = shoes(rules, server_seed, client_seed, int(nonce), int(cut))
        shoe.position = int(position)
        return Shuffle(shoe, int(seed_id), committed, client_seed, int(nonce), int(cut),
                       shoe.position, source, server_seed=server_seed)  # fmt: skip

    def dealt(self, uow: UnitOfWork, shoe: Shoe, mode: str) -> None:
        done = shoe.is_cut_card_reached
        seed_id = uow.scalar(
            "UPDATE shoes SET position = :pos, finished = :done "
            "WHERE player_id = :p AND table_id = :t AND mode = :m RETURNING seed_id",
            {"pos": shoe.position, "done": int(done), **self._key(mode)},
        )
        if done:
            # A seed rotated while this shoe was dealt from it is revealed when it ends.
            seeds.reveal_if_done(uow, int(seed_id))


HOUSE = HouseBank()

# What a player may do at a house table, in the order the felt shows them.
HOUSE_ACTIONS = ("deal", "rebet", "double", "new_game", "cut")


def allowed_actions(
    table: Table, last_bets: Bets | None, balance: int, shoe: ShoeState | None
) -> list[str]:
    """What the player may do at a house table now (the browser enables its buttons by
    them; a deal's bets are still checked when they come): a deal unless a cut is due; with
    a round on the felt (``last_bets``: its bets; None when there is none, or it was
    voided), a new game, and its bets again, or twice them, if the table and the balance
    take them."""
    allowed = {"cut" if shoe is not None and shoe.cut_due else "deal"}
    if last_bets is not None:
        allowed.add("new_game")
        # What the bets take: their stakes, and at a multiplier table the fee with them.
        if table.takes(last_bets) and table.wagered(last_bets) <= balance:
            allowed.add("rebet")
        doubled = last_bets.doubled()
        if table.takes(doubled) and table.wagered(doubled) <= balance:
            allowed.add("double")
    return [action for action in HOUSE_ACTIONS if action in allowed]


def _last_bets(last: StoredRound | None) -> Bets | None:
    """The bets of the round on the felt (none for a voided round: it is not shown)."""
    if last is None or last.void_reason is not None:
        return None
    return Bets({name: bet["stake"] for name, bet in json.loads(last.bets).items()})


def table_state(
    uow: UnitOfWork, player_id: int, table: Table, mode: str, balance: int | None = None
) -> dict[str, Any]:
    """The player at a house table: what they may do, their balance (ours, unless it lives
    elsewhere: an operator's), their last round there and (cut-shoe tables) their shoe."""
    check_mode(mode)
    # As its next round would play it: a table the back office closed, or whose limits it
    # changed, shows so here (the page asks again on focus and after every round).
    table, open_ = switches.now(uow, table)
    found, _ = history.page(uow, player_id, mode, 1, None, table_id=table.id)
    last = found[0] if found else None
    shoe = shoe_state(uow, player_id, table, mode) if table.is_cut_shoe else None
    if balance is None:
        balance = player_account(uow, player_id, mode)[1]
    allowed = allowed_actions(table, _last_bets(last), balance, shoe)
    return {
        "table_id": table.id,
        "mode": mode,
        "open": open_,
        "currency": table.currency,
        "limits": table.limits.to_json(),
        "bets": table.bets_json(),
        "allowed_actions": allowed if open_ else [a for a in allowed if a == "new_game"],
        "balance": balance,
        "last_round": None if last is None else last.to_json(),
        "shoe": None if shoe is None else shoe.to_json(),
    }


def round_answer(
    uow: UnitOfWork, player_id: int, table: Table, played: StoredRound, bets: Bets
) -> dict[str, Any]:
    """A played round as its player is answered: the round, the shoe, what they may do
    (at the table as the round played it: its limits now)."""
    table = switches.now(uow, table)[0]
    answer = played.to_json()
    shoe = shoe_state(uow, player_id, table, played.mode) if table.is_cut_shoe else None
    if shoe is not None:
        answer["shoe"] = shoe.to_json()
    answer["allowed_actions"] = allowed_actions(table, bets, played.balance_after, shoe)
    answer["currency"] = table.currency
    return answer


def play_round(
    uow: UnitOfWork,
    dealer: Dealer,
    player_id: int,
    table: Table,
    mode: str,
    bets: Bets,
    profile: Profile | None = None,
) -> StoredRound:
    """Play one round for the player at a house table; refused (with nothing written) if it
    cannot be, or if its jurisdiction ``profile`` does not let it start yet."""
    check_mode(mode)
    if profile is not None:
        admit_house_round(uow, profile, player_id)
    # Where the database pipelines: every read of the round in one round trip, the first one's.
    switches.SWITCH.ahead(uow, table.id)
    responsible.STAKE_CHECK.ahead(uow, (player_id, mode))
    prefetch(uow, dealer, mode, player_id, fresh=not table.is_cut_shoe)
    table = switches.in_play(uow, table)
    table.check_bets(bets)
    source = CutShoe(player_id, table) if table.is_cut_shoe else FreshShuffle(player_id)
    (played,) = play(
        uow, dealer, HOUSE, table_id=table.id, rules=table.rules, mode=mode, source=source,
        stakes=[Stake(player_id, bets)],
    )  # fmt: skip
    return played
