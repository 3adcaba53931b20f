"""A round: check, debit, shuffle, deal, settle, credit, record, in one transaction.

This is the hot path. It runs as one short write transaction of a handful of statements:
take the nonce (or lock the player's shoe), move the money in one conditional update of the
player's balance (refused unless the balance covers the whole stake), and record the ledger
transaction, its entries and the round. The house's balance is derived from its entries, so
rounds of different players share no row and never wait for each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core import Bets, RuleSet, Shoe
from . import ledger, pipeline, responsible, seeds
from .db.uow import UnitOfWork
from .dealing import ShoeFactory
from .errors import ServiceError
from .history import StoredRound
from .ledger import SystemAccounts, check_mode
from .tables import Table


@dataclass(frozen=True)
class Dealer:
    """What a round needs besides the database: the deal source and the casino's accounts."""

    shoes: ShoeFactory
    system: SystemAccounts


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
    """The player cuts a new shoe: it takes the next nonce and is dealt to its cut card."""
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
    drawn = seeds.take_nonce(uow, player_id, mode)
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
    }
    if current is None:
        uow.run(
            "INSERT INTO shoes (player_id, table_id, mode, seed_id, client_seed, nonce, cut, "
            "position, cut_card, cards, finished, created_us) VALUES (:p, :t, :m, :seed, :cs, "
            ":nonce, :cut, :pos, :cut_card, :cards, 0, :now)",
            values,
        )
    else:
        uow.run(
            "UPDATE shoes SET seed_id = :seed, client_seed = :cs, nonce = :nonce, cut = :cut, "
            "position = :pos, cut_card = :cut_card, cards = :cards, finished = 0, "
            "created_us = :now WHERE player_id = :p AND table_id = :t AND mode = :m",
            values,
        )
    return shoe_state(uow, player_id, table, mode)


@dataclass(frozen=True, slots=True)
class _Shuffle:
    shoe: Shoe
    seed_id: int
    commitment: str
    client_seed: str
    nonce: int
    cut: int | None


def _fresh_shuffle(uow: UnitOfWork, dealer: Dealer, player_id: int, mode: str,
                   rules: RuleSet) -> _Shuffle:  # fmt: skip
    drawn = seeds.take_nonce(uow, player_id, mode)
    shoe = dealer.shoes(rules, drawn.server_seed, drawn.client_seed, drawn.nonce, None)
    return _Shuffle(shoe, drawn.seed_id, drawn.commitment, drawn.client_seed, drawn.nonce, None)


def _shoe_in_play(uow: UnitOfWork, dealer: Dealer, player_id: int, mode: str,
                  table: Table) -> _Shuffle:  # fmt: skip
    row = uow.one(
        "SELECT sh.seed_id, s.server_seed, s.commitment, sh.client_seed, sh.nonce, sh.cut, "
        "sh.position, sh.finished FROM shoes sh JOIN fairness_seeds s ON s.id = sh.seed_id "
        "WHERE sh.player_id = :p AND sh.table_id = :t AND sh.mode = :m" + uow.lock("sh"),
        {"p": player_id, "t": table.id, "m": mode},
    )
    if row is None or row[7]:
        raise ServiceError(
            "cut_required",
            "a new shoe waits for your cut: POST /api/tables/{id}/shoe with the position",
            table=table.id,
            mode=mode,
        )
    seed_id, server_seed, committed, client_seed, nonce, cut, position, _ = row
    # The shoe is rebuilt from its seeds (the order is cached) and set where it stopped.
    shoe = dealer.shoes(table.rules, server_seed, client_seed, int(nonce), int(cut))
    shoe.position = int(position)
    return _Shuffle(shoe, int(seed_id), committed, client_seed, int(nonce), int(cut))


def play_round(
    uow: UnitOfWork, dealer: Dealer, player_id: int, table: Table, mode: str, bets: Bets
) -> StoredRound:
    """Play one round for the player; refused (with nothing written) if it cannot be."""
    check_mode(mode)
    table.check_bets(bets)
    stake = bets.total
    rules = table.rules
    if table.is_cut_shoe:
        shuffle = _shoe_in_play(uow, dealer, player_id, mode, table)
    else:
        shuffle = _fresh_shuffle(uow, dealer, player_id, mode, rules)
    shoe = shuffle.shoe
    dealt = pipeline.deal(
        shoe, seed_id=shuffle.seed_id, commitment=shuffle.commitment,
        client_seed=shuffle.client_seed, nonce=shuffle.nonce, cut=shuffle.cut,
    )  # fmt: skip
    bets_json, win = pipeline.settled(rules, bets, dealt.coup)
    responsible.admit_round(uow, player_id, mode, stake, win)
    # Debit and credit in one conditional update: the whole stake must be covered.
    account, balance_after = ledger.stake_round(uow, player_id, mode, stake, win)
    house = dealer.system.get(mode, "house")
    round_id = pipeline.new_round_id()
    tx_id = ledger.post_round(
        uow, "round", mode, round_id, ledger.moves((account, house, stake), (house, account, win)),
        system=dealer.system, applied=frozenset((account,)),
    )  # fmt: skip
    money = pipeline.Settled(bets_json, stake, win, balance_after)
    seq = pipeline.record(uow, round_id, player_id, table.id, mode, rules, dealt, money, tx_id)
    if table.is_cut_shoe:
        uow.run(
            "UPDATE shoes SET position = :pos, finished = :done "
            "WHERE player_id = :p AND table_id = :t AND mode = :m",
            {"pos": shoe.position, "done": int(shoe.is_cut_card_reached), "p": player_id,
             "t": table.id, "m": mode},
        )  # fmt: skip
    return StoredRound(
        seq, round_id, table.id, mode, uow.now, rules.name, dealt.commitment,
        dealt.client_seed, dealt.nonce, dealt.cut, dealt.position, dealt.player_cards,
        dealt.banker_cards, dealt.coup.winner.value, bets_json, stake, win,
        money.balance_before, balance_after, None, None,
    )  # fmt: skip
