"""A shared table's clock, in the database: its shoe, its coup, the coup's deadlines.

A coup's window opens (``opens_us``) and closes (``closes_us``, ``betting_s`` later); once
closed, the coup is dealt and settled in one transaction (``deal``): the cards from the
shoe where the previous coup ended, every bettor's bets settled by ``round.play`` (one batch
per mode), the shoe moved on; the result stands until ``next_us`` (``result_s`` later), and
then, while anyone watches the table (``watched_until_us``), the next window opens. Phases,
as everyone sees them: ``betting`` (now < closes), ``closed`` (closed, not dealt yet),
``dealt`` (until the next window), ``idle`` (nobody watches: the table rests).

Every transition (``advance``) takes the table's row locked (on PostgreSQL ``FOR UPDATE
SKIP LOCKED``: a table another worker is advancing is left to it) and applies what is due
by the deadlines stored in the rows, so any worker may advance any table and none deals a
coup twice: a worker that dies mid-transaction leaves nothing, the next one to look does it.
It returns what it did as events (``events``: a shoe changed, a window opened, a coup
dealt), which the caller emits in its transaction. A coup is dealt once: its cards are
stored with it, and every batch of its bettors is settled on them (``bank.DealtCoup``).

A shoe is created with a fresh server seed when a window opens and the table has none in
play: its commitment (sha256 of the seed) is stored, and shown, before any bet on it. When
the cut card comes out the shoe ends and its seed is revealed (``shared_shoes.finished_us``).
With a public randomness beacon (``beacon``), the shoe's commitment names a round of the
beacon not published yet, and the shoe waits (no window opens on it) until that round's
randomness has entered its client seed (``enter_beacon``): only then is its order complete.
Every shoe's commitment, beacon round and reveal go into the table's log (``tablelog``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from baccarat.core import Bets, Card, format_cards
from baccarat.fairness import commitment, new_server_seed
from baccarat.fairness.beacon import Chain, randomness, shoe_client_seed
from baccarat.server import seeds
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import hand_json, lightning_of, lightning_text
from baccarat.server.kinds.shared import tablelog
from baccarat.server.kinds.shared.bank import CUT, NONCE, SHARED, TableShoe
from baccarat.server.kinds.shared.events import CoupDealt, SharedEvent, ShoeChanged, WindowOpened
from baccarat.server.kinds.shared.terms import is_shared, terms_of
from baccarat.server.observe import metrics
from baccarat.server.play.round import Bank, Dealer, Stake, play
from baccarat.server.tables import Table

WATCH_US = 60_000_000  # a read of the state, or an open socket, keeps the table dealing 60 s
ON_TIME_US = 1_000_000  # a window opened later than this after it was due starts from now
MIN_RESULT_US = 1_000_000  # a result shows at least this long, however late it was dealt
LEAD_ROUNDS = 2  # a shoe takes the beacon round published 1 to 2 periods after its commitment


@dataclass(frozen=True, slots=True)
class ShoeRow:
    id: int
    table_id: str
    server_seed: str
    commitment: str
    client_seed: str
    start: int
    position: int
    cards: int
    coups: int
    finished_us: int | None
    ending: str | None
    beacon_chain: str | None
    beacon_round: int | None
    beacon_signature: str | None

    @property
    def waiting(self) -> bool:
        """The shoe waits for its beacon round (its order is not complete yet)."""
        return (
            self.beacon_round is not None
            and self.beacon_signature is None
            and self.finished_us is None
        )

    @property
    def revealed(self) -> str | None:
        return self.server_seed if self.finished_us is not None else None

    def source(self, uow: UnitOfWork) -> TableShoe:
        """The shoe to deal on from (its seed opened: it is sealed until the shoe ends)."""
        seed = seeds.opened(uow, self.server_seed, self.commitment)
        return TableShoe(seed, self.commitment, self.client_seed, self.position)


@dataclass(frozen=True, slots=True)
class CoupRow:
    id: int
    table_id: str
    shoe_id: int
    number: int
    opens_us: int
    closes_us: int
    dealt_us: int | None
    next_us: int | None
    position: int | None
    player_cards: str | None
    banker_cards: str | None
    winner: str | None
    void_reason: str | None
    lightning: str | None = None  # a multiplier table's multiplier cards, drawn at the close

    def phase(self, now: int) -> str:
        if self.dealt_us is None:
            return "betting" if now < self.closes_us else "closed"
        return "dealt"


@dataclass(frozen=True, slots=True)
class Batch:
    """Bettors of a coup whose money lives elsewhere (an operator's wallet): settled by the
    one round function with this dealer and bank, as the rounds ``round_ids``."""

    dealer: Dealer
    bank: Bank
    mode: str
    stakes: Sequence[Stake]
    round_ids: Sequence[str]


class Elsewhere(Protocol):
    """The bettors on other wallets (``shared.elsewhere.OperatorCoups``): their bets are in
    ``shared_bets`` with the round that holds their stake (``operator_round``)."""

    def close(self, uow: UnitOfWork, coup_id: int) -> list[Batch]:
        """The coup closes: what stands, to settle on its cards (the rest is taken off)."""
        ...

    def cancel(self, uow: UnitOfWork, coup_id: int) -> None:
        """The coup will never be dealt: give every bet on it back."""
        ...


SHOE_COLUMNS = (
    "id, table_id, server_seed, commitment, client_seed, start, position, cards, coups, "
    "finished_us, ending, beacon_chain, beacon_round, beacon_signature"
)
COUP_COLUMNS = (
    "id, table_id, shoe_id, number, opens_us, closes_us, dealt_us, next_us, position, "
    "player_cards, banker_cards, winner, void_reason, lightning"
)


def load_shoe(uow: UnitOfWork, shoe_id: int) -> ShoeRow:
    row = uow.one(f"SELECT {SHOE_COLUMNS} FROM shared_shoes WHERE id = :id", {"id": shoe_id})
    assert row is not None
    return ShoeRow(*row)


def load_coup(uow: UnitOfWork, table: Table, coup_id: int, *, lock: str = "") -> CoupRow:
    """A coup of this table (``unknown_coup`` otherwise); ``lock``: a row lock suffix."""
    row = uow.one(
        f"SELECT {COUP_COLUMNS} FROM shared_coups WHERE id = :id AND table_id = :t" + lock,
        {"id": coup_id, "t": table.id},
    )
    if row is None:
        raise ServiceError(
            "unknown_coup", f"table {table.id} has no coup {coup_id}", table=table.id, coup=coup_id
        )
    return CoupRow(*row)


def require_shared(table: Table) -> None:
    if not is_shared(table):
        raise ServiceError(
            "not_a_shared_table", f"table {table.id} is not a shared table", table=table.id
        )


def ensure(uow: UnitOfWork, tables: Iterable[Table]) -> None:
    """The clock rows of the shared tables (idempotent: workers starting together)."""
    for table in tables:
        if not is_shared(table):
            continue
        if uow.one("SELECT 1 FROM shared_tables WHERE table_id = :t", {"t": table.id}) is None:
            uow.run(
                "INSERT INTO shared_tables (table_id, watched_until_us) VALUES (:t, 0) "
                "ON CONFLICT (table_id) DO NOTHING",
                {"t": table.id},
            )


def retire(
    uow: UnitOfWork, dealer: Dealer, served: Iterable[str], elsewhere: Elsewhere | None = None
) -> list[str]:
    """The shared tables no longer served (gone from the tables file): the bets on a coup
    not dealt go back to their bettors (``shared_bet_return``), the coup is void, and the
    shoe in play is cancelled, its seed revealed. The tables retired."""
    known = set(served)
    retired = []
    for table_id, shoe_id, coup_id in uow.all(
        "SELECT table_id, shoe_id, coup_id FROM shared_tables ORDER BY table_id"
    ):
        if table_id in known:
            continue
        retired.append(str(table_id))
        row = None if coup_id is None else uow.one(
            "SELECT dealt_us FROM shared_coups WHERE id = :c" + uow.for_update, {"c": coup_id}
        )  # fmt: skip
        if row is not None and row[0] is None:
            if elsewhere is not None:
                elsewhere.cancel(uow, int(coup_id))
            for player, mode, stake in uow.all(
                "SELECT player_id, mode, stake + fee FROM shared_bets WHERE coup_id = :c "
                "AND operator_round IS NULL ORDER BY player_id, mode",
                {"c": coup_id},
            ):
                escrow = dealer.wallet.reserving  # ours: these bets are in its escrow
                assert escrow is not None
                escrow.reserve(uow, "shared_bet_return", mode, f"coup {coup_id}", int(player),
                               -int(stake))  # fmt: skip
            uow.run("DELETE FROM shared_bets WHERE coup_id = :c", {"c": coup_id})
            uow.run(
                "UPDATE shared_coups SET void_reason = :r WHERE id = :c",
                {"r": "the table closed before the coup was dealt", "c": coup_id},
            )
        if shoe_id is not None:
            ended = load_shoe(uow, int(shoe_id))
            # Revealed by the one retirement that ended the shoe (the write's count, not the
            # read before it: two workers retiring the table at once both read it unfinished).
            if uow.run(
                "UPDATE shared_shoes SET finished_us = :now, ending = 'cancelled', "
                "server_seed = :seed WHERE id = :s AND finished_us IS NULL",
                {"now": uow.now, "s": shoe_id,
                 "seed": seeds.opened(uow, ended.server_seed, ended.commitment)},
            ):  # fmt: skip
                _reveal(uow, load_shoe(uow, int(shoe_id)))
        uow.run("UPDATE shared_tables SET coup_id = NULL WHERE table_id = :t", {"t": table_id})
    return retired


def clock_of(uow: UnitOfWork, table: Table) -> tuple[ShoeRow | None, CoupRow | None, int]:
    """The table's shoe in play (or last), its current coup and until when it is watched."""
    row = uow.one(
        "SELECT shoe_id, coup_id, watched_until_us FROM shared_tables WHERE table_id = :t",
        {"t": table.id},
    )
    if row is None:
        return None, None, 0
    shoe = None if row[0] is None else load_shoe(uow, int(row[0]))
    coup = None if row[1] is None else load_coup(uow, table, int(row[1]))
    return shoe, coup, int(row[2])


def next_due(uow: UnitOfWork, table: Table) -> int | None:
    """When the table's next transition is due (None: it rests until watched); for a shoe
    waiting for its beacon round, when that round is due (``waiting``)."""
    shoe, coup, watched = clock_of(uow, table)
    if coup is not None and coup.dealt_us is None:
        return coup.closes_us
    if shoe is not None and shoe.waiting:
        return None
    opens = 0 if coup is None or coup.next_us is None else coup.next_us
    return max(opens, uow.now) if watched > uow.now else None


def watch(uow: UnitOfWork, table_ids: Iterable[str]) -> None:
    """Someone watches these tables: they keep dealing for ``WATCH_US`` more."""
    for table_id in table_ids:
        uow.run(
            "UPDATE shared_tables SET watched_until_us = :until WHERE table_id = :t",
            {"until": uow.now + WATCH_US, "t": table_id},
        )


def waiting(uow: UnitOfWork, table: Table) -> ShoeRow | None:
    """The table's shoe, if it waits for its beacon round."""
    shoe, _, _ = clock_of(uow, table)
    return shoe if shoe is not None and shoe.waiting else None


def advance(
    uow: UnitOfWork, dealer: Dealer, table: Table, chain: Chain | None = None,
    *, beacon: bool = False, elsewhere: Elsewhere | None = None,
) -> list[SharedEvent]:  # fmt: skip
    """Apply the table's transition that is due now, if any, and say what it did: a closed
    coup dealt and settled (``CoupDealt``, after ``ShoeChanged`` if the shoe ended), the
    next window (``WindowOpened``, after ``ShoeChanged`` if a new shoe was made for it) or
    a new shoe committed, waiting for its beacon round (``ShoeChanged``); nothing when
    nothing is due (or another worker is advancing the table). ``beacon``: the table takes
    a beacon's round (``chain``; while it is not known, no new shoe is made: the table never
    deals without it)."""
    require_shared(table)
    row = uow.one(
        "SELECT shoe_id, coup_id, watched_until_us FROM shared_tables WHERE table_id = :t"
        + uow.skip_locked,
        {"t": table.id},
    )
    if row is None:
        return []
    shoe_id, coup_id, watched = row
    coup = None if coup_id is None else load_coup(uow, table, int(coup_id), lock=uow.for_update)
    if coup is not None and coup.dealt_us is None:
        if uow.now < coup.closes_us:
            return []
        return deal(uow, dealer, table, coup, elsewhere)
    if coup is not None and coup.next_us is not None and uow.now < coup.next_us:
        return []
    if int(watched) <= uow.now:
        return []  # nobody watches: the table rests
    done: list[SharedEvent] = []
    shoe = None if shoe_id is None else load_shoe(uow, int(shoe_id))
    if shoe is None or shoe.finished_us is not None:
        if beacon and chain is None:
            return []  # the beacon is not reached yet: the table waits
        shoe = _new_shoe(uow, dealer, table, chain)
        done.append(ShoeChanged(table.id, shoe_json(shoe)))
        if shoe.waiting:
            uow.run(
                "UPDATE shared_tables SET shoe_id = :s WHERE table_id = :t",
                {"s": shoe.id, "t": table.id},
            )
            return done
    if shoe.waiting:
        return []
    done.append(_open(uow, table, shoe, None if coup is None else coup.next_us))
    return done


def enter_beacon(
    uow: UnitOfWork, dealer: Dealer, table: Table, shoe_id: int, signature: str
) -> bool:
    """The beacon round the shoe waits for enters it (its signature checked by the caller,
    ``beacon.Beacon.fetch``): the client seed takes the round's randomness, and the shoe's
    order is complete. False if the shoe was not waiting (another worker did it)."""
    uow.one("SELECT 1 FROM shared_tables WHERE table_id = :t" + uow.for_update, {"t": table.id})
    shoe = load_shoe(uow, shoe_id)
    if not shoe.waiting or shoe.table_id != table.id:
        return False
    value = randomness(signature)
    client_seed = shoe_client_seed(shoe.client_seed, value)
    seed = seeds.opened(uow, shoe.server_seed, shoe.commitment)
    start = dealer.shoes(table.rules, seed, client_seed, NONCE, CUT).position  # after the burn
    uow.run(
        "UPDATE shared_shoes SET client_seed = :cs, start = :start, position = :start, "
        "beacon_signature = :sig WHERE id = :id",
        {"cs": client_seed, "start": start, "sig": signature, "id": shoe.id},
    )
    tablelog.append(uow, table.id, shoe.id, {
        "type": "beacon", "shoe": shoe.id, "chain": shoe.beacon_chain,
        "round": shoe.beacon_round, "signature": signature, "randomness": value,
        "client_seed": client_seed,
    })  # fmt: skip
    return True


def _reveal(uow: UnitOfWork, shoe: ShoeRow) -> None:
    tablelog.append(uow, shoe.table_id, shoe.id, {
        "type": "reveal", "shoe": shoe.id, "commitment": shoe.commitment,
        "server_seed": shoe.server_seed, "ending": shoe.ending, "coups": shoe.coups,
    })  # fmt: skip


def _new_shoe(uow: UnitOfWork, dealer: Dealer, table: Table, chain: Chain | None) -> ShoeRow:
    """A new shoe for the table: a fresh seed, committed (in the table's log) before any
    bet on it; with a beacon, before the round it names is published (it waits for it)."""
    seed = new_server_seed()
    committed = commitment(seed)
    number = 1 + int(
        uow.scalar("SELECT COUNT(*) FROM shared_shoes WHERE table_id = :t", {"t": table.id})
    )
    client_seed = f"{table.id}/{number}"  # with a beacon: its randomness added when it enters
    named = None if chain is None else chain.round_at(uow.now / 1e6) + LEAD_ROUNDS
    # The first coup starts after the burn (with a beacon: known once its round entered).
    start = 0 if chain else dealer.shoes(table.rules, seed, client_seed, NONCE, CUT).position
    shoe_id = int(
        uow.scalar(
            "INSERT INTO shared_shoes (table_id, server_seed, commitment, client_seed, cut, "
            "start, position, cards, coups, created_us, beacon_chain, beacon_round) VALUES "
            "(:t, :seed, :c, :cs, :cut, :start, :start, :cards, 0, :now, :chain, :round) "
            "RETURNING id",
            {"t": table.id, "seed": seeds.seal(uow, seed, committed), "c": committed,
             "cs": client_seed, "cut": CUT, "start": start,
             "cards": table.rules.cards_per_shoe, "now": uow.now,
             "chain": None if chain is None else chain.hash, "round": named},
        )
    )  # fmt: skip
    tablelog.append(uow, table.id, shoe_id, {
        "type": "commit", "shoe": shoe_id, "number": number, "commitment": committed,
        "client_seed": client_seed, "rules": table.rules.name,
        "beacon": None if chain is None or named is None else {
            "chain": chain.hash, "public_key": chain.public_key, "round": named,
            "published_us": chain.time_of(named) * 1_000_000,
        },
    })  # fmt: skip
    return load_shoe(uow, shoe_id)


def _open(uow: UnitOfWork, table: Table, shoe: ShoeRow, due: int | None) -> WindowOpened:
    """The next window, of ``betting_s`` from when it was due (``due``: the last coup's
    ``next_us``) if it opens less than ``ON_TIME_US`` late, so that the table's clock keeps
    its pace whatever a tick or a deal took; else (the table rested) from now."""
    assert shoe is not None and not shoe.waiting
    start = due if due is not None and 0 <= uow.now - due < ON_TIME_US else uow.now
    closes = start + terms_of(table).betting_s * 1_000_000
    coup_id = int(
        uow.scalar(
            "INSERT INTO shared_coups (table_id, shoe_id, number, opens_us, closes_us) "
            "VALUES (:t, :s, :n, :now, :closes) RETURNING id",
            {"t": table.id, "s": shoe.id, "n": shoe.coups + 1, "now": uow.now, "closes": closes},
        )
    )
    uow.run(
        "UPDATE shared_tables SET shoe_id = :s, coup_id = :c WHERE table_id = :t",
        {"s": shoe.id, "c": coup_id, "t": table.id},
    )
    return WindowOpened(table.id, coup_id, shoe.coups + 1, closes)


def deal(
    uow: UnitOfWork, dealer: Dealer, table: Table, coup: CoupRow,
    elsewhere: Elsewhere | None = None,
) -> list[SharedEvent]:  # fmt: skip
    """Deal the closed coup, once, from the shoe where the last one ended and settle every
    bettor on its cards (one ``round.play`` per mode, and one per batch of bettors on other
    wallets, ``elsewhere``, each taking the cards dealt: ``bank.DealtCoup``); the shoe moves
    on, and ends (its seed revealed) when the cut card has come out. At a multiplier table
    the coup's multiplier cards are drawn first, as the window closes (from the shoe's seeds
    and the coup's position in it), and shown to everyone with the coup. What it did: the
    shoe's end (``ShoeChanged``), if it ended, and the coup dealt (``CoupDealt``)."""
    others = [] if elsewhere is None else elsewhere.close(uow, coup.id)
    metrics.coup_started(uow, table.id, lambda: sum(len(b.stakes) for b in [*batches, *others]))
    shoe = load_shoe(uow, coup.shoe_id)
    source = shoe.source(uow)
    lightning = source.lightning(dealer, table.rules)
    dealt = source.deal(dealer.shoes, table.rules, lightning)
    cards, dealt_shoe = dealt.shuffled.coup, dealt.shuffled.shoe
    assert cards is not None and dealt_shoe is not None
    pc, bc = format_cards(cards.player.cards), format_cards(cards.banker.cards)
    # The result stands result_s from the close (at least MIN_RESULT_US from the deal).
    next_us = max(coup.closes_us + terms_of(table).result_s * 1_000_000, uow.now + MIN_RESULT_US)
    drawn = lightning_text(lightning)
    uow.run(
        "UPDATE shared_coups SET dealt_us = :now, next_us = :next, position = :pos, "
        "player_cards = :pc, banker_cards = :bc, winner = :w, lightning = :l WHERE id = :id",
        {"now": uow.now, "next": next_us, "pos": shoe.position, "pc": pc, "bc": bc,
         "w": cards.winner.value, "l": drawn, "id": coup.id},
    )  # fmt: skip
    finished = dealt_shoe.is_cut_card_reached
    uow.run(
        "UPDATE shared_shoes SET position = :pos, coups = coups + 1, finished_us = :done, "
        "ending = :ending, server_seed = :seed WHERE id = :id",
        # Ended, the shoe's seed is revealed: kept in the clear from now on.
        {"pos": dealt_shoe.position, "done": uow.now if finished else None,
         "ending": "finished" if finished else None,
         "seed": source.server_seed if finished else shoe.server_seed, "id": shoe.id},
    )  # fmt: skip
    done: list[SharedEvent] = []
    if finished:
        ended = load_shoe(uow, shoe.id)
        _reveal(uow, ended)
        done.append(ShoeChanged(table.id, shoe_json(ended)))
    batches = []
    for mode in ("fun", "real"):
        rows = uow.all(
            "SELECT player_id, bets FROM shared_bets WHERE coup_id = :c AND mode = :m "
            "AND stake > 0 AND operator_round IS NULL ORDER BY player_id",
            {"c": coup.id, "m": mode},
        )
        if rows:
            stakes = [Stake(int(p), Bets(json.loads(bets))) for p, bets in rows]
            batches.append(Batch(dealer, SHARED, mode, stakes, ()))
    for batch in [*batches, *others]:
        played = play(uow, batch.dealer, batch.bank, table_id=table.id, rules=table.rules,
                      mode=batch.mode, source=dealt, stakes=batch.stakes,
                      round_ids=batch.round_ids or None)  # fmt: skip
        pairs = zip(batch.stakes, played, strict=True)
        _settled(uow, coup.id, batch.mode, [(stake.player_id, rec.id) for stake, rec in pairs])
    done.append(CoupDealt(table.id, coup.id, pc, bc, cards.winner.value, shoe.position, next_us,
                          drawn))  # fmt: skip
    return done


SETTLED_CHUNK = 500  # bettors per statement that records their rounds


def _settled(uow: UnitOfWork, coup_id: int, mode: str, rounds: list[tuple[int, str]]) -> None:
    """Each bettor's bets on the coup settled by their round: one statement for them all
    (of ``SETTLED_CHUNK`` bettors at most), not one a bettor."""
    for start in range(0, len(rounds), SETTLED_CHUNK):
        table, params = uow.rows("v", (("p", "bigint"), ("r", "text")),
                                 rounds[start : start + SETTLED_CHUNK])  # fmt: skip
        uow.run(
            f"WITH {table} UPDATE shared_bets SET round_id = v.r FROM v "
            "WHERE shared_bets.coup_id = :c AND shared_bets.mode = :m "
            "AND shared_bets.player_id = v.p",
            params | {"c": coup_id, "m": mode},
        )


def shoe_json(shoe: ShoeRow) -> dict[str, Any]:
    return {
        "id": shoe.id,
        "commitment": shoe.commitment,
        "client_seed": shoe.client_seed,
        "coups_dealt": shoe.coups,
        "cards_left": shoe.cards - shoe.position,
        "finished": shoe.finished_us is not None,
        "server_seed": shoe.revealed,
        "beacon": None
        if shoe.beacon_round is None
        else {
            "chain": shoe.beacon_chain,
            "round": shoe.beacon_round,
            "entered": shoe.beacon_signature is not None,
            "randomness": None
            if shoe.beacon_signature is None
            else randomness(shoe.beacon_signature),
        },
    }


def coup_cards(coup: CoupRow) -> dict[str, Any] | None:
    if coup.player_cards is None or coup.banker_cards is None:
        return None
    return cards_json(coup.player_cards, coup.banker_cards, coup.winner, coup.position,
                      coup.lightning)  # fmt: skip


def cards_json(
    player_cards: str, banker_cards: str, winner: str | None, position: int | None,
    lightning: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A dealt coup's cards as everyone sees them (``result``), with a multiplier table's
    multiplier cards (``lightning``: ``[{"card", "multiplier"}, ...]``, empty elsewhere)."""
    return {
        "player": hand_json(player_cards),
        "banker": hand_json(banker_cards),
        "winner": winner,
        "position": position,
        "cards_used": len(Card.parse_many(player_cards)) + len(Card.parse_many(banker_cards)),
        "lightning": [one.to_json() for one in lightning_of(lightning)],
    }
