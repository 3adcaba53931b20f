"""A round: the one function every round is played by, and voided by.

Every kind of round passes the same steps, in this order (``STEPS``):

1. ``shoe``: take the nonce and shuffle, or continue the cut shoe (a ``ShoeSource``);
2. ``deal``: the coup (or the one the source dealt before: a shared coup is dealt once, and
   each batch of its bettors is settled on those cards);
3. ``settle``: every bettor's bets on the dealt cards, by core's one settlement;
4. ``admit``: the responsible-gaming limits admit it and count it;
5. ``money``: the wallet port moves it, as one posting;
6. ``record``: a row of ``rounds`` per bettor, and what else the bank records.

A void passes the same steps the other way (``void``): the recorded shuffle, the recorded
cards, the recorded settlement (what was paid, not what a re-settlement would pay), the
limits uncount it, the wallet rolls its money back, the round is marked void. A wallet
that does not roll rounds back (``money.Reversing``: an operator's) has its rounds' voids
refused before the first step.

What differs between kinds of round is who covers the bets: a ``Bank`` (the casino:
``banks.HouseBank``; a player: ``banked.bank.PlayerBank``) gives its postings, its void's
postings, its admit and unadmit and its extra record. Where the money lives is the
dealer's ``Wallet`` (``money``; a coup of many bettors is settled in one batch on a wallet
that batches). A coup may have several bettors (a shared table): each is
settled, admitted, posted and recorded as a round of their own (a round, a transaction).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from baccarat.core import (
    Bets,
    Card,
    Coup,
    Hand,
    Lightning,
    RuleSet,
    Shoe,
    bet_multiplier,
    deal_coup,
    format_cards,
    judge,
    settle_judged,
)
from baccarat.server import daily, seeds
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import LightningSource, ShoeFactory, fair_lightning
from baccarat.server.errors import ServiceError
from baccarat.server.history import StoredRound, get_round, lightning_of, lightning_text
from baccarat.server.money import Money, Posted, Reversing, Wallet
from baccarat.server.observe import metrics

STEPS = ("shoe", "deal", "settle", "admit", "money", "record")
MAX_REASON = 200  # characters of a void's reason (as the CLI takes notes)
# Told each step as it begins: (the course, "play" or "void"; the step).
Observer = Callable[[str, str], None]


class Dealer:
    """What every round needs besides the database: where the cards come from (and a
    multiplier table's multiplier cards) and the wallet the money moves on (the casino's
    ledger, or an operator's: the composition root chooses, ``wallets``)."""

    def __init__(
        self, shoes: ShoeFactory, wallet: Wallet, observe: Observer | None = None,
        lightning: LightningSource = fair_lightning,
    ) -> None:  # fmt: skip
        self.shoes = shoes
        self.wallet = wallet
        self.observe: Observer = observe if observe is not None else _unobserved
        self.lightning = lightning


def _unobserved(course: str, step: str) -> None:
    return None


def new_round_id(now_us: int) -> str:
    """``r_`` and 20 hex digits: the millisecond (11 digits, in order for 500 years) and 36
    random bits. Ids in the order of time go to the end of the rounds' primary-key index,
    where the rounds committed together share its last page, not each to a page at random."""
    return f"r_{now_us // 1000 % (1 << 44):011x}{secrets.randbits(36):09x}"


# -- shoes ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shuffle:
    """A shoe ready to deal and where it came from (a void's has no shoe: nothing is dealt)."""

    shoe: Shoe | None
    seed_id: int | None  # a void reads none
    commitment: str
    client_seed: str
    nonce: int
    cut: int | None
    position: int  # the shoe's position before the coup
    # Who set the client seed: "client", "server" (None: unknown, recorded before it was).
    client_seed_source: str | None = None
    # The coup already dealt from ``shoe`` (``shoe`` is past it): the round deals no other.
    coup: Coup | None = None
    # The server seed (in memory only), from which a multiplier table's multiplier cards are
    # drawn (``lightning``: drawn already, a shared coup's at its close).
    server_seed: str | None = None
    lightning: tuple[Lightning, ...] | None = None

    def with_lightning(self, dealer: Dealer, rules: RuleSet) -> Shuffle:
        """The shuffle with its coup's multiplier cards, at a multiplier table (drawn from its
        seeds, unless they were)."""
        terms = rules.multipliers
        if terms is None or self.lightning is not None:
            return self
        assert self.server_seed is not None, "a multiplier table's shuffle needs its seed"
        # At the coup's position in the shoe, as the round records it (the verifier's).
        drawn = dealer.lightning(
            terms, self.server_seed, self.client_seed, self.nonce, self.position
        )
        return replace(self, lightning=drawn)


class ShoeSource(Protocol):
    """Where a round's shoe comes from: a fresh shuffle, or a cut shoe in play."""

    def shuffle(self, uow: UnitOfWork, shoes: ShoeFactory, rules: RuleSet, mode: str) -> Shuffle:
        """Take the nonce and shuffle, or continue the shoe (its row locked)."""
        ...

    def dealt(self, uow: UnitOfWork, shoe: Shoe, mode: str) -> None:
        """The coup is dealt: the shoe moves on past it."""
        ...


@dataclass(frozen=True, slots=True)
class FreshShuffle:
    """A new shoe for every round, from a player's seeds and next nonce."""

    player_id: int

    def shuffle(self, uow: UnitOfWork, shoes: ShoeFactory, rules: RuleSet, mode: str) -> Shuffle:
        drawn = seeds.take_nonce(uow, self.player_id, mode)
        shoe = shoes(rules, drawn.server_seed, drawn.client_seed, drawn.nonce, None)
        return Shuffle(shoe, drawn.seed_id, drawn.commitment, drawn.client_seed, drawn.nonce,
                       None, shoe.position, drawn.client_seed_source,
                       server_seed=drawn.server_seed)  # fmt: skip

    def dealt(self, uow: UnitOfWork, shoe: Shoe, mode: str) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Dealt:
    """A coup and the shuffle it was dealt from (what the round records), and at a
    multiplier table its multiplier cards."""

    coup: Coup
    shuffle: Shuffle
    lightning: tuple[Lightning, ...] = ()

    @property
    def recorded(self) -> tuple[str, str, str]:
        """The coup as a round's row records it: both hands' cards, and the winner."""
        coup = self.coup
        return format_cards(coup.player.cards), format_cards(coup.banker.cards), coup.winner.value

    @property
    def lightning_json(self) -> str | None:
        """The multiplier cards as a round's row records them (None: there are none)."""
        return lightning_text(self.lightning)


# -- settlement ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stake:
    """One bettor's bets on the coup."""

    player_id: int
    bets: Bets


@dataclass(frozen=True, slots=True)
class Settled:
    """One bettor's bets settled: as the round records them (JSON), the stake, and what
    returns to the bettor (stakes included); at a multiplier table the fee taken with the
    stakes (never returned)."""

    player_id: int
    bets_json: str
    stake: int
    returned: int
    fee: int = 0

    @property
    def net(self) -> int:
        return self.returned - self.stake - self.fee

    @property
    def wagered(self) -> int:
        """What the bets took from the balance: the stakes and the fee."""
        return self.stake + self.fee


# Settlements by (rule set, bets, the line each bet hit, at a multiplier table each bet's
# multiplier): a pure function of them (the lines are all a settlement reads of the coup: a
# pair bet's line is "pair" or None whatever the winner), with few distinct arguments at a
# table's limits. Keyed by the rule set's identity (its hash covers every field); the entry
# keeps the rule set itself, so the identity is never reused while cached.
_Key = tuple[int, Bets, tuple[str | None, ...], tuple[int, ...] | None]
_SETTLEMENTS: dict[_Key, tuple[RuleSet, str, int, int]] = {}
_SETTLEMENTS_MAX = 4096


def settle_stake(
    rules: RuleSet, stake: Stake, coup: Coup, lightning: Sequence[Lightning] = ()
) -> Settled:
    """A bettor's bets settled on the dealt cards (and a multiplier table's multiplier
    cards) by ``core``'s settlement."""
    bets = stake.bets
    lines = judge(bets, coup)
    multipliers = None
    if rules.multipliers is not None:
        multipliers = tuple(bet_multiplier(name, coup, lightning) for name, _ in bets.placed())
    key = (id(rules), bets, lines, multipliers)
    entry = _SETTLEMENTS.get(key)
    if entry is None or entry[0] is not rules:
        settlement = settle_judged(rules, bets, lines, multipliers)
        text = json.dumps(settlement.to_json(), separators=(",", ":"))
        if len(_SETTLEMENTS) >= _SETTLEMENTS_MAX:
            _SETTLEMENTS.clear()
        entry = _SETTLEMENTS[key] = (rules, text, settlement.returned, settlement.fees)
    return Settled(stake.player_id, entry[1], bets.total, entry[2], entry[3])


@dataclass(frozen=True, slots=True)
class Played:
    """A bettor's round as recorded: its row, its settlement, its posting."""

    round: StoredRound
    settled: Settled
    posted: Posted


# -- who covers the bets -------------------------------------------------------------------


class Bank(Protocol):
    """Who covers a round's bets, and what that changes: the postings, the void's postings,
    the responsible-gaming admit and unadmit, and any record besides the rounds'."""

    @property
    def kind(self) -> str:
        """The kind of the round's ledger transaction."""
        ...

    def admit(self, uow: UnitOfWork, mode: str, settled: Sequence[Settled]) -> None: ...

    def unadmit(
        self, uow: UnitOfWork, mode: str, played_us: int, settled: Sequence[Settled]
    ) -> None: ...

    def money(self, mode: str, settled: Sequence[Settled]) -> list[Money]:
        """The postings of the coup: one per bettor, in their order."""
        ...

    def void_money(self, one: Settled) -> Money:
        """What a bettor's round moved in the end, party to party (holds it released not
        included), for a void to reverse."""
        ...

    def record(self, uow: UnitOfWork, mode: str, played: Sequence[Played]) -> None: ...

    def unrecord(self, uow: UnitOfWork, mode: str, rounds: Sequence[StoredRound]) -> None: ...


# -- the one function ----------------------------------------------------------------------


class _Course(Protocol):
    """One direction through the steps: playing a round, or voiding one."""

    @property
    def name(self) -> str: ...

    def shoe(self, uow: UnitOfWork, dealer: Dealer) -> Shuffle: ...
    def deal(self, shuffle: Shuffle) -> Dealt: ...
    def settle(self, dealt: Dealt) -> list[Settled]: ...
    def admit(self, uow: UnitOfWork, bank: Bank, settled: list[Settled]) -> None: ...
    def money(
        self, uow: UnitOfWork, dealer: Dealer, bank: Bank, settled: list[Settled]
    ) -> list[Posted]: ...
    def record(
        self, uow: UnitOfWork, bank: Bank, dealt: Dealt, settled: list[Settled],
        posted: list[Posted],
    ) -> list[StoredRound]: ...  # fmt: skip


def _run(uow: UnitOfWork, dealer: Dealer, bank: Bank, course: _Course) -> list[StoredRound]:
    """The steps of every round, in order (``STEPS``)."""

    observe = dealer.observe
    observe(course.name, "shoe")
    shuffle = course.shoe(uow, dealer)
    observe(course.name, "deal")
    dealt = course.deal(shuffle)
    observe(course.name, "settle")
    settled = course.settle(dealt)
    observe(course.name, "admit")
    course.admit(uow, bank, settled)
    observe(course.name, "money")
    posted = course.money(uow, dealer, bank, settled)
    observe(course.name, "record")
    return course.record(uow, bank, dealt, settled, posted)


def play(
    uow: UnitOfWork,
    dealer: Dealer,
    bank: Bank,
    *,
    table_id: str,
    rules: RuleSet,
    mode: str,
    source: ShoeSource,
    stakes: Sequence[Stake],
    round_ids: Sequence[str] | None = None,
) -> list[StoredRound]:
    """Play one coup for its bettors (bets already checked against the table); refused
    with nothing written if it cannot be. The rounds as recorded, one per bettor (their ids
    new, or ``round_ids``: a round its wallet knew before the deal, an operator's)."""
    ids = tuple(new_round_id(uow.now) for _ in stakes) if round_ids is None else tuple(round_ids)
    assert len(ids) == len(stakes)
    metrics.round_started(uow, table_id, mode, len(stakes))
    return _run(uow, dealer, bank, _Playing(table_id, rules, mode, source, tuple(stakes), ids))


def prefetch(
    uow: UnitOfWork, dealer: Dealer, mode: str, player_id: int, fresh: bool,
    others: Sequence[int] = (),
) -> None:  # fmt: skip
    """What a round of one bettor is about to read (PostgreSQL): the nonce of a fresh
    shuffle (``fresh``), the balances of the bettor and of ``others`` (a player-banked
    round's banker) and the row's ``seq``, sent ahead in one round trip with whatever else
    the caller sent ahead (``UnitOfWork.prefetch``): the round's writes then need no answer
    before its commit."""
    if not uow.pipelines:
        return
    if fresh:
        seeds.NONCE.ahead(uow, (player_id, mode))
    ahead = dealer.wallet.batching
    if ahead is not None:
        for party in (player_id, *others):
            ahead.prefetch(uow, mode, party)
    uow.prefetch(_NEXT_SEQ)


def void(
    uow: UnitOfWork, dealer: Dealer, bank: Bank, recorded: StoredRound, player_id: int,
    reason: str,
) -> StoredRound:  # fmt: skip
    """Void a recorded round of this bettor (its row locked by the caller): every stake
    returns, any payout is taken back, the reason is shown."""
    reason = reason.strip()
    if not reason:
        raise ServiceError("void_not_possible", "a void needs a reason")
    if len(reason) > MAX_REASON or not reason.isprintable():
        # Shown to the player and printed on operators' terminals: text, never control bytes.
        raise ServiceError(
            "invalid_reason",
            f"a void's reason is 1 to {MAX_REASON} printable characters (no control characters)",
        )
    if recorded.void_reason is not None:
        raise ServiceError(
            "void_not_possible", f"round {recorded.id} is already void: {recorded.void_reason}"
        )
    wallet = dealer.wallet.reversing
    if wallet is None:
        raise ServiceError(
            "void_not_possible",
            f"round {recorded.id} is on a wallet that does not roll rounds back (an "
            "operator's: the operator settles it): it is not voided here",
            round=recorded.id,
        )
    return _run(uow, dealer, bank, _Voiding(recorded, player_id, reason, wallet))[0]


@dataclass(frozen=True, slots=True)
class _Playing:
    table_id: str
    rules: RuleSet
    mode: str
    source: ShoeSource
    stakes: tuple[Stake, ...]
    round_ids: tuple[str, ...]
    name: str = "play"

    def shoe(self, uow: UnitOfWork, dealer: Dealer) -> Shuffle:
        shuffle = self.source.shuffle(uow, dealer.shoes, self.rules, self.mode)
        return shuffle.with_lightning(dealer, self.rules)

    def deal(self, shuffle: Shuffle) -> Dealt:
        lightning = shuffle.lightning or ()
        if shuffle.coup is not None:
            return Dealt(shuffle.coup, shuffle, lightning)
        assert shuffle.shoe is not None
        return Dealt(deal_coup(shuffle.shoe), shuffle, lightning)

    def settle(self, dealt: Dealt) -> list[Settled]:
        return [
            settle_stake(self.rules, stake, dealt.coup, dealt.lightning) for stake in self.stakes
        ]

    def admit(self, uow: UnitOfWork, bank: Bank, settled: list[Settled]) -> None:
        bank.admit(uow, self.mode, settled)

    def money(
        self, uow: UnitOfWork, dealer: Dealer, bank: Bank, settled: list[Settled]
    ) -> list[Posted]:
        postings = list(zip(self.round_ids, bank.money(self.mode, settled), strict=True))
        # A coup of many bettors (a shared table's), on a wallet that settles many rounds in
        # one batch (the ledger's): one batch, not a posting each; their rows too.
        batching = dealer.wallet.batching
        if batching is not None and len(postings) > 1:
            return batching.settle_many(uow, bank.kind, self.mode, postings)
        if len(postings) == 1:
            # PostgreSQL: taken now at the latest (the shoe's nonce, and with it the bettor's
            # order of rounds, is had; ``prefetch`` takes it sooner), read with the posting's
            # answer: the row is then written unawaited.
            uow.prefetch(_NEXT_SEQ)
        return [
            dealer.wallet.settle(uow, bank.kind, self.mode, round_id, money)
            for round_id, money in postings
        ]

    def record(
        self, uow: UnitOfWork, bank: Bank, dealt: Dealt, settled: list[Settled],
        posted: list[Posted],
    ) -> list[StoredRound]:  # fmt: skip
        if len(settled) > 1:
            rounds = _insert_rounds(uow, self.round_ids, self.table_id, self.mode, self.rules,
                                    dealt, settled, posted)  # fmt: skip
        else:
            seqs: Sequence[int | None] = [None] * len(settled)
            if uow.prefetched(_NEXT_SEQ):
                seqs = [int(uow.scalar(_NEXT_SEQ))]
            rounds = [
                _insert_round(uow, round_id, seq, self.table_id, self.mode, self.rules, dealt,
                              one, done)
                for round_id, seq, one, done in zip(self.round_ids, seqs, settled, posted,
                                                    strict=True)
            ]  # fmt: skip
        bank.record(uow, self.mode, list(map(Played, rounds, settled, posted)))
        assert dealt.shuffle.shoe is not None
        self.source.dealt(uow, dealt.shuffle.shoe, self.mode)
        return rounds


@dataclass(frozen=True, slots=True)
class _Voiding:
    recorded: StoredRound
    player_id: int
    reason: str
    wallet: Reversing
    name: str = "void"

    def shoe(self, uow: UnitOfWork, dealer: Dealer) -> Shuffle:
        r = self.recorded
        return Shuffle(None, None, r.commitment, r.client_seed, r.nonce, r.cut, r.position,
                       r.client_seed_source)  # fmt: skip

    def deal(self, shuffle: Shuffle) -> Dealt:
        r = self.recorded
        coup = Coup(Hand(Card.parse_many(r.player_cards)), Hand(Card.parse_many(r.banker_cards)))
        return Dealt(coup, shuffle, lightning_of(r.lightning))

    def settle(self, dealt: Dealt) -> list[Settled]:
        # What was paid, not what a settlement today would pay: the void undoes the money.
        r = self.recorded
        return [Settled(self.player_id, r.bets, r.stake, r.win, r.fee)]

    def admit(self, uow: UnitOfWork, bank: Bank, settled: list[Settled]) -> None:
        bank.unadmit(uow, self.recorded.mode, self.recorded.created_us, settled)

    def money(
        self, uow: UnitOfWork, dealer: Dealer, bank: Bank, settled: list[Settled]
    ) -> list[Posted]:
        r, (one,) = self.recorded, settled
        try:
            return [self.wallet.reverse(uow, r.mode, r.id, bank.void_money(one), self.reason)]
        except ServiceError as error:
            if error.code != "insufficient_funds":
                raise
            raise ServiceError(
                "void_not_possible",
                "a participant of this round no longer holds what the void takes back",
                **error.details,
            ) from None

    def record(
        self, uow: UnitOfWork, bank: Bank, dealt: Dealt, settled: list[Settled],
        posted: list[Posted],
    ) -> list[StoredRound]:  # fmt: skip
        r, (done,) = self.recorded, posted
        uow.run(
            "UPDATE rounds SET void_reason = :r, voided_us = :now, void_transaction_id = :tx "
            "WHERE id = :id",
            {"r": self.reason, "now": uow.now, "tx": done.transaction_id, "id": r.id},
        )
        bank.unrecord(uow, r.mode, [r])
        daily.uncount(uow, r.created_us, r.table_id, r.mode, r.bets, done.currency)
        return [get_round(uow, None, r.id)]


# PostgreSQL: the next value of ``rounds.seq`` (what its default would take).
_NEXT_SEQ = "SELECT nextval(pg_get_serial_sequence('rounds', 'seq'))"
ROUND_COLUMNS = (
    "id, player_id, table_id, mode, created_us, rules, seed_id, commitment, client_seed, "
    "nonce, cut, position, player_cards, banker_cards, winner, bets, stake, win, "
    "balance_before, balance_after, transaction_id, client_seed_source, lightning, fee"
)
_INSERT_ROUND = (
    "INSERT INTO rounds ({seq}" + ROUND_COLUMNS + ") VALUES "
    "({value}:id, :p, :t, :m, :now, :rules, :seed, :c, :cs, :nonce, :cut, :pos, :pc, :bc, "
    ":winner, :bets, :stake, :win, :before, :after, :tx, :source, :lightning, :fee){returning}"
)
_INSERT_NEW = _INSERT_ROUND.format(seq="", value="", returning=" RETURNING seq")
_INSERT_SEQ = _INSERT_ROUND.format(seq="seq, ", value=":seq, ", returning="")
ROUNDS_BATCH = 500  # rounds per INSERT of a coup's rounds


def _insert_round(
    uow: UnitOfWork,
    round_id: str,
    seq: int | None,
    table_id: str,
    mode: str,
    rules: RuleSet,
    dealt: Dealt,
    settled: Settled,
    posted: Posted,
) -> StoredRound:
    """Write a bettor's row of ``rounds`` (its ``seq`` given: sent without waiting); the
    round as stored."""
    shuffle, after = dealt.shuffle, posted.balances[settled.player_id]
    before = after - settled.net
    pc, bc, winner = dealt.recorded
    values = {
        "id": round_id, "p": settled.player_id, "t": table_id, "m": mode,
        "now": uow.now, "rules": rules.name, "seed": shuffle.seed_id,
        "c": shuffle.commitment, "cs": shuffle.client_seed, "nonce": shuffle.nonce,
        "cut": shuffle.cut, "pos": shuffle.position, "pc": pc, "bc": bc,
        "winner": winner, "bets": settled.bets_json, "stake": settled.stake,
        "win": settled.returned, "before": before, "after": after,
        "tx": posted.transaction_id, "source": shuffle.client_seed_source,
        "lightning": dealt.lightning_json, "fee": settled.fee,
    }  # fmt: skip
    if seq is None:
        seq = int(uow.scalar(_INSERT_NEW, values))
    else:
        uow.send(_INSERT_SEQ, values | {"seq": seq})
    daily.count(uow, round_id, settled.player_id, table_id, mode, settled.bets_json,
                settled.wagered, settled.returned, posted.currency)  # fmt: skip
    return _stored(uow, seq, round_id, table_id, mode, rules, dealt, (pc, bc, winner),
                   (settled.bets_json, settled.stake, settled.returned, before, after,
                    settled.fee))  # fmt: skip


def _stored(
    uow: UnitOfWork, seq: int, round_id: str, table_id: str, mode: str, rules: RuleSet,
    dealt: Dealt, coup: tuple[str, str, str], own: tuple[str, int, int, int, int, int],
) -> StoredRound:  # fmt: skip
    """A round as written: the coup's cards and winner (and multiplier cards), the bettor's
    bets, stake, return, balances and fee."""
    (pc, bc, winner), (bets, stake, win, before, after, fee) = coup, own
    shuffle = dealt.shuffle
    return StoredRound(
        seq, round_id, table_id, mode, uow.now, rules.name, shuffle.commitment,
        shuffle.client_seed, shuffle.nonce, shuffle.cut, shuffle.position, pc, bc, winner,
        bets, stake, win, before, after, None, None,
        client_seed_source=shuffle.client_seed_source, lightning=dealt.lightning_json, fee=fee,
    )  # fmt: skip


def _insert_rounds(
    uow: UnitOfWork,
    round_ids: Sequence[str],
    table_id: str,
    mode: str,
    rules: RuleSet,
    dealt: Dealt,
    settled: Sequence[Settled],
    posted: Sequence[Posted],
) -> list[StoredRound]:
    """Write the rows of ``rounds`` of a coup's many bettors (one INSERT for them all, of
    ``ROUNDS_BATCH`` at most) and count them in the daily aggregates; the rounds as stored."""
    shuffle = dealt.shuffle
    pc, bc, winner = dealt.recorded
    common = {
        "t": table_id, "m": mode, "now": uow.now, "rules": rules.name, "seed": shuffle.seed_id,
        "c": shuffle.commitment, "cs": shuffle.client_seed, "nonce": shuffle.nonce,
        "cut": shuffle.cut, "pos": shuffle.position, "pc": pc, "bc": bc, "winner": winner,
        "source": shuffle.client_seed_source, "lightning": dealt.lightning_json,
    }  # fmt: skip
    own = [
        (round_id, one.player_id, one.bets_json, one.stake, one.returned,
         done.balances[one.player_id] - one.net, done.balances[one.player_id],
         done.transaction_id, one.fee)
        for round_id, one, done in zip(round_ids, settled, posted, strict=True)
    ]  # fmt: skip
    columns = (("id", "text"), ("p", "bigint"), ("bets", "text"), ("stake", "bigint"),
               ("win", "bigint"), ("b0", "bigint"), ("b1", "bigint"), ("tx", "bigint"),
               ("fee", "bigint"))  # fmt: skip
    seqs: dict[str, int] = {}
    for start in range(0, len(own), ROUNDS_BATCH):
        table, params = uow.rows("v", columns, own[start : start + ROUNDS_BATCH])
        for seq, round_id in uow.all(
            f"WITH {table} INSERT INTO rounds ({ROUND_COLUMNS}) SELECT v.id, v.p, :t, :m, "
            "CAST(:now AS BIGINT), :rules, CAST(:seed AS BIGINT), :c, :cs, "
            "CAST(:nonce AS BIGINT), CAST(:cut AS INTEGER), CAST(:pos AS INTEGER), :pc, :bc, "
            ":winner, v.bets, v.stake, v.win, v.b0, v.b1, v.tx, :source, :lightning, v.fee "
            "FROM v RETURNING seq, id",
            params | common,
        ):
            seqs[str(round_id)] = int(seq)
    for (round_id, player, bets, stake, win, *_, fee), done in zip(own, posted, strict=True):
        daily.count(uow, round_id, player, table_id, mode, bets, stake + fee, win, done.currency)
    return [
        _stored(uow, seqs[round_id], round_id, table_id, mode, rules, dealt, (pc, bc, winner),
                (bets, stake, win, before, after, fee))
        for round_id, _, bets, stake, win, before, after, _, fee in own
    ]  # fmt: skip
