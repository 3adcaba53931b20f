"""Rounds as records and as JSON: the API's answer, the history pages and the export.

The export is ``baccarat-history/1`` (docs/history-format.md), one JSON object per line,
oldest first, with the server seed filled in once the player has rotated (revealed) it.

A player-banked round is one row of ``rounds`` (the player's) and one of ``banked_rounds``;
it appears in both participants' histories, with their ``role`` and their side of it (the
banker's balances, net, fee and points). It is dealt from the seat's own seed, with both
participants' client seeds (``fairness.client_seeds``), and the seed is revealed to both
when the seat ends (rounds banked before that were dealt from the player's seeds).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from baccarat.core import Card, Hand, Lightning, Outcome, get_rules
from baccarat.fairness.history import (
    BetRecord,
    FairnessRecord,
    HandRecord,
    RoundRecord,
    seat_client_seeds,
)
from baccarat.fairness.signing import Signer
from baccarat.server import ledger, seeds
from baccarat.server.db.lookup import Lookup
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.jsontext import compact
from baccarat.server.ledger import MODES


def iso_time(us: int) -> str:
    return _iso_second(us // 1_000_000)


@lru_cache(maxsize=256)
def _iso_second(second: int) -> str:
    # Cached: the rounds of one second (hundreds on a busy server) share the text.
    return datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def hand_json(cards_text: str) -> dict[str, Any]:
    """A recorded hand (its cards' text) as the API shows it: cards and ``[x, y]`` scores."""
    return Hand(Card.parse_many(cards_text)).to_json()


@lru_cache(maxsize=8192)
def _hand(cards_text: str) -> HandRecord:
    # Cached (a record is immutable): every round's answer and history line reads two.
    hand = Hand(Card.parse_many(cards_text))
    return HandRecord(hand.cards, hand.scores)


@lru_cache(maxsize=8192)
def _bet_records(bets_json: str) -> tuple[BetRecord, ...]:
    # Cached like ``_hand``: a table's settlements are few distinct texts.
    return tuple(
        BetRecord(
            kind,
            bet["stake"],
            bet["result"],
            bet["returned"],
            bet.get("fee", 0),
            bet.get("multiplier", 1),
        )
        for kind, bet in json.loads(bets_json).items()
    )


def lightning_text(lightning: Sequence[Lightning]) -> str | None:
    """A coup's multiplier cards as the rows record them: JSON, ``[{"card", "multiplier"},
    ...]`` in the order drawn (None for none)."""
    if not lightning:
        return None
    return json.dumps([one.to_json() for one in lightning], separators=(",", ":"))


@lru_cache(maxsize=8192)
def lightning_of(text: str | None) -> tuple[Lightning, ...]:
    """Multiplier cards as recorded (``lightning_text``); cached like ``_hand``."""
    return () if text is None else tuple(Lightning.from_json(one) for one in json.loads(text))


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A row of ``rounds``, as stored."""

    seq: int
    id: str
    table_id: str
    mode: str
    created_us: int
    rules: str
    commitment: str
    client_seed: str
    nonce: int
    cut: int | None
    position: int
    player_cards: str
    banker_cards: str
    winner: str
    bets: str  # JSON: {"player": {"stake", "result", "returned"}, ...}
    stake: int
    win: int
    balance_before: int
    balance_after: int
    void_reason: str | None
    server_seed: str | None  # only once revealed
    role: str = "player"
    # Player-banked rounds: this participant's side (see ``BankedRoundOut``).
    banked: dict[str, Any] | None = None
    # The export only: what the server published when it revealed the round's seed.
    published: seeds.Published | None = None
    # Who set this participant's client seed ("client", "server"; None: recorded before).
    client_seed_source: str | None = None
    # A seat's own seed: the client seed is both participants' (banker's, player's).
    seat_seed: bool = False
    # A shared table's round: ``{"coup", "shoe"}`` (its shoe is the table's).
    shared: dict[str, Any] | None = None
    # A multiplier table's round: its multiplier cards (JSON, ``lightning_text``) and
    # the fee taken with its stakes (never returned).
    lightning: str | None = None
    fee: int = 0
    # The export only: the currency of the player's accounts, which its amounts are in.
    currency: str | None = None

    def export(self) -> RoundRecord:
        """The round as a line of ``baccarat-history/1`` (voided: every stake returned)."""
        bets = _bet_records(self.bets)
        known = self.published
        record = RoundRecord(
            line=0,
            id=self.id,
            rules=get_rules(self.rules),
            rules_name=self.rules,
            fairness=FairnessRecord(
                self.server_seed,
                self.commitment,
                self.client_seed,
                self.nonce,
                self.cut,
                self.position,
                None if known is None else known.nonces_used,
                None if known is None else known.undealt_shoes,
                self.client_seed_source,
                seat_client_seeds(self.client_seed) if self.seat_seed else None,
            ),
            player=_hand(self.player_cards),
            banker=_hand(self.banker_cards),
            winner=Outcome(self.winner),
            bets=bets,
            win=self.win,
            balance_before=self.balance_before,
            balance_after=self.balance_after,
            void_reason=None,
            table_id=self.table_id,
            mode=self.mode,
            time=iso_time(self.created_us),
            currency=self.currency,
            role=self.role,
            fee=self.banked["fee"] if self.banked else 0,
            banked=self.banked,
            shared=self.shared,
            lightning=lightning_of(self.lightning),
        )
        return record if self.void_reason is None else record.voided(self.void_reason)

    def export_json(self) -> dict[str, Any]:
        """One line of ``baccarat-history/1``, exactly as docs/history-format.md says."""
        return self.export().to_json()

    def to_json(self) -> dict[str, Any]:
        """The API's round: the export's line with the total stake, the participant's role
        and (player-banked rounds) their side of it."""
        line = self.export().to_json()
        del line["format"]
        line.pop("fee", None)
        return line | {"stake": self.stake, "fee": self.fee, "role": self.role,
                       "banked": self.banked}  # fmt: skip


# The columns a round is read with, by name: first ``StoredRound``'s own, in its order.
_FIELDS = (
    ("seq", "r.seq"), ("id", "r.id"), ("table_id", "r.table_id"), ("mode", "r.mode"),
    ("created_us", "r.created_us"), ("rules", "r.rules"), ("commitment", "r.commitment"),
    ("client_seed", "r.client_seed"), ("nonce", "r.nonce"), ("cut", "r.cut"),
    ("position", "r.position"), ("player_cards", "r.player_cards"),
    ("banker_cards", "r.banker_cards"), ("winner", "r.winner"), ("bets", "r.bets"),
    ("stake", "r.stake"), ("win", "r.win"), ("balance_before", "r.balance_before"),
    ("balance_after", "r.balance_after"), ("void_reason", "r.void_reason"),
    ("server_seed", "CASE WHEN s.revealed_us IS NOT NULL THEN s.server_seed "
                    "WHEN ss.finished_us IS NOT NULL THEN ss.server_seed END"),
    # Player-banked rounds (NULL otherwise): the seat, the fee, both sides' figures.
    ("seat_id", "b.seat_id"), ("fee", "b.fee"), ("player_points", "b.player_points"),
    ("banker_points", "b.banker_points"), ("banker_before", "b.banker_before"),
    ("banker_after", "b.banker_after"), ("banker", "pb.nickname"), ("player", "pp.nickname"),
    # Who set the client seeds (the player's, the banker's), and whether it is a seat's seed.
    ("player_source", "r.client_seed_source"), ("banker_source", "b.banker_seed_source"),
    ("seed_seat", "s.seat_id"),
    # Shared tables' rounds (NULL otherwise): the coup, and the table's shoe.
    ("coup", "sb.coup_id"), ("shoe", "ss.id"),
    # Multiplier tables' rounds: the multiplier cards (NULL otherwise) and the fee (0).
    ("lightning", "r.lightning"), ("fee_taken", "r.fee"),
    # Whose side the row is (the SELECT gives it).
    ("role", None),
)  # fmt: skip
_NAMES = tuple(name for name, _ in _FIELDS)
_STORED = _NAMES[: _NAMES.index("server_seed") + 1]
assert tuple(f.name for f in fields(StoredRound))[: len(_STORED)] == _STORED
_COLUMNS = ", ".join(sql for _, sql in _FIELDS if sql is not None)
_BANKED = "LEFT JOIN players pb ON pb.id = b.banker_id LEFT JOIN players pp ON pp.id = b.player_id "
# A round's seed: the player's (``fairness_seeds``), or a shared table's shoe's.
_SEEDS = (
    "LEFT JOIN fairness_seeds s ON s.id = r.seed_id "
    "LEFT JOIN shared_bets sb ON r.seed_id IS NULL AND sb.round_id = r.id "
    "LEFT JOIN shared_coups sc ON sc.id = sb.coup_id "
    "LEFT JOIN shared_shoes ss ON ss.id = sc.shoe_id "
)
SELECT_ROUNDS = (
    f"SELECT {_COLUMNS}, 'player' FROM rounds r {_SEEDS}"
    f"LEFT JOIN banked_rounds b ON b.round_id = r.id {_BANKED}"
)
# The rounds a player banked: the same columns, from the banker's side.
SELECT_BANKED = (
    f"SELECT {_COLUMNS}, 'banker' FROM banked_rounds b JOIN rounds r ON r.id = b.round_id "
    f"{_SEEDS}{_BANKED}"
)


def record(row: tuple[Any, ...]) -> StoredRound:
    """A round as one participant sees it (the last column says which)."""
    c = dict(zip(_NAMES, row, strict=True))
    role = c["role"]
    source = c["banker_source"] if role == "banker" else c["player_source"]
    stored = {name: c[name] for name in _STORED}
    rec = StoredRound(**stored, client_seed_source=source, seat_seed=c["seed_seat"] is not None,
                      lightning=c["lightning"], fee=int(c["fee_taken"]))  # fmt: skip
    if c["seat_id"] is None:
        if c["coup"] is None:
            return rec
        return replace(rec, shared={"coup": int(c["coup"]), "shoe": int(c["shoe"])})
    player, banker, seat_id = c["player"], c["banker"], c["seat_id"]
    player_points, banker_points = c["player_points"], c["banker_points"]
    banker_before, banker_after, fee = c["banker_before"], c["banker_after"], c["fee"]
    stake, win, fee = rec.stake, rec.win, int(fee)
    if role == "banker":
        figures = (player, stake - win - fee, -int(banker_points), int(banker_before),
                   int(banker_after))  # fmt: skip
    else:
        figures = (banker, win - stake, int(player_points), rec.balance_before,
                   rec.balance_after)  # fmt: skip
    opponent, net, points, before, after = figures
    banked = {"role": role, "seat_id": seat_id, "opponent": opponent, "fee": fee, "net": net,
              "points": points, "balance_before": before, "balance_after": after}  # fmt: skip
    if role == "banker":
        return replace(rec, balance_before=before, balance_after=after, role=role, banked=banked)
    return replace(rec, role=role, banked=banked)


# A round on an operator's wallet is the player's once its bet is applied (docs/operator-api.md).
SHOWN = ("NOT EXISTS (SELECT 1 FROM operator_rounds o WHERE o.round_id = r.id "
         "AND o.state NOT IN ('win', 'settled'))")  # fmt: skip


# A player's own round, by (player, round id), as ``get_round`` reads it first: a service
# that wrote it asks for it ahead (``Lookup.ahead``), to come with the unit's next read.
MINE: Lookup[tuple[int, str]] = Lookup(
    SELECT_ROUNDS + f"WHERE r.id = :id AND r.player_id = :p AND {SHOWN}", "p", "id"
)


def get_round(uow: UnitOfWork, player_id: int | None, round_id: str) -> StoredRound:
    """A round by id; with a player id, only among that player's rounds."""
    if player_id is None:
        row = uow.one(SELECT_ROUNDS + "WHERE r.id = :id", {"id": round_id})
    else:
        row = MINE.one(uow, (player_id, round_id)) or uow.one(
            SELECT_BANKED + "WHERE b.round_id = :id AND b.banker_id = :p",
            {"id": round_id, "p": player_id},
        )
    if row is None:
        raise ServiceError("unknown_round", f"there is no round {round_id!r}", round=round_id)
    return record(row)


def _both_sides(
    player_id: int,
    mode: str | None,
    after: int | None,
    before: int | None,
    newest_first: bool,
    table_id: str | None = None,
) -> tuple[str, dict[str, Any]]:
    """The player's rounds and the rounds they banked, merged in order of ``seq``.

    One arm per side and mode, each a range of its index ((player, mode, seq) and
    (banker, mode, seq)) cut at ``:limit``: without a mode both modes are read that way and
    merged, instead of sorting every round the player ever played.
    """
    params: dict[str, Any] = {"p": player_id, "after": after, "before": before,
                              "t": table_id}  # fmt: skip
    arms: list[str] = []
    order = "DESC" if newest_first else ""
    sides = (
        (SELECT_ROUNDS, "r.player_id", "r.seq", "r.mode"),
        (SELECT_BANKED, "b.banker_id", "b.round_seq", "b.mode"),
    )
    for select, who, seq, mode_of in sides:
        for m in (mode,) if mode is not None else MODES:
            params[f"m{len(arms)}"] = m
            conditions = [f"{who} = :p", f"{mode_of} = :m{len(arms)}", SHOWN]
            if table_id is not None:
                conditions.append("r.table_id = :t")
            if after is not None:
                conditions.append(f"{seq} > :after")
            if before is not None:
                conditions.append(f"{seq} < :before")
            arms.append(
                f"SELECT * FROM ({select}WHERE {' AND '.join(conditions)} "
                f"ORDER BY {seq} {order} LIMIT :limit) AS arm{len(arms)}"
            )
    return f"{' UNION ALL '.join(arms)} ORDER BY 1 {order} LIMIT :limit", params


def page(
    uow: UnitOfWork,
    player_id: int,
    mode: str | None,
    limit: int,
    before: str | None,
    table_id: str | None = None,
) -> tuple[list[StoredRound], str | None]:
    """Newest first; ``before`` is the id of the last round of the previous page; with
    ``table_id``, only that table's rounds (the table page shows its last round again)."""
    seq = None
    if before is not None:
        found = uow.scalar(
            "SELECT r.seq FROM rounds r LEFT JOIN banked_rounds b ON b.round_id = r.id "
            "WHERE r.id = :id AND (r.player_id = :p OR b.banker_id = :p)",
            {"id": before, "p": player_id},
        )
        if found is None:
            raise ServiceError("invalid_cursor", f"{before!r} is not one of your rounds")
        seq = int(found)
    sql, params = _both_sides(player_id, mode, None, seq, newest_first=True, table_id=table_id)
    rows = uow.all(sql, params | {"limit": limit + 1})
    records = [record(row) for row in rows[:limit]]
    return records, (records[-1].id if len(rows) > limit and records else None)


EXPORT_PAGE = 200


def export_page(
    uow: UnitOfWork, player_id: int, mode: str | None, after_seq: int
) -> list[StoredRound]:
    """Up to EXPORT_PAGE rounds after ``after_seq``, oldest first (both roles); the player's
    own rounds under a revealed seed carry what was published when it was revealed (the
    nonces it gave out, its undealt shoes) for the verifier's check of the nonces; so do
    both participants' rounds under a seat's seed."""
    sql, params = _both_sides(player_id, mode, after_seq, None, newest_first=False)
    records = [record(row) for row in uow.all(sql, params | {"limit": EXPORT_PAGE})]
    own = [r for r in records if (r.role == "player" or r.seat_seed) and r.server_seed]
    known = seeds.published(uow, player_id, (r.commitment for r in own if not r.seat_seed))
    known |= seeds.published(uow, None, (r.commitment for r in own if r.seat_seed))
    ids = {r.id for r in own}
    currency = ledger.currency_of(uow, player_id)
    return [replace(r, currency=currency, published=known.get(r.commitment) if r.id in ids
                    else r.published) for r in records]  # fmt: skip


def export_lines(records: list[StoredRound], signer: Signer) -> Iterator[str]:
    """The lines of the export, each signed by the casino (its ``signature`` and
    ``key_id``: docs/history-format.md)."""
    for rec in records:
        yield compact(signer.sign_line(rec.export_json())) + "\n"


def export_chunk(
    uow: UnitOfWork, player_id: int, mode: str | None, after_seq: int, signer: Signer
) -> tuple[str, int | None]:
    """One page of the export as text (built on the database thread, not the event loop),
    and the ``seq`` to continue after (None: that was the last page)."""
    records = export_page(uow, player_id, mode, after_seq)
    following = records[-1].seq if len(records) == EXPORT_PAGE else None
    return "".join(export_lines(records, signer)), following
