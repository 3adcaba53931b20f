"""The history export (``baccarat-history/1``, docs/history-format.md): read, check, write.

Reading is strict about what verification needs (types, vocabulary, ranges) and lenient
about the rest: unknown keys are ignored, blank lines are skipped. Anything it cannot read
raises ``HistoryFormatError`` naming the line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from ..core import (
    BET_TYPES,
    Card,
    CardError,
    Coup,
    Lightning,
    MultiplierError,
    Outcome,
    RuleSet,
    RuleSetError,
    Settlement,
    get_rules,
)
from .signing import line_message

FORMAT = "baccarat-history/1"
# What a bet's ``result`` may say: the settlement results, and "void" on a voided round.
RESULTS = ("win", "push", "lose", "void")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class HistoryFormatError(ValueError):
    """A history line that cannot be read: names the line and the field."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True, slots=True)
class UndealtShoe:
    """A shoe the player cut under a seed and never dealt from (its nonce dealt no round)."""

    nonce: int
    table_id: str | None
    cut: int | None

    def to_json(self) -> dict[str, Any]:
        return {"nonce": self.nonce, "table_id": self.table_id, "cut": self.cut}


@dataclass(frozen=True, slots=True)
class FairnessRecord:
    """The ``fairness`` object: what re-derives the shuffle, and where the coup starts.

    Once the seed is revealed the server adds what it published at rotation: how many
    nonces the seed gave out (``nonces_used``) and the shoes cut under it that dealt no
    round (``undealt_shoes``), so that a verifier can tell a skipped nonce from an honest
    one. Both are None in an export written before them (or while the seed is secret).
    """

    server_seed: str | None
    commitment: str
    client_seed: str
    nonce: int
    cut: int | None
    position: int
    nonces_used: int | None = None
    undealt_shoes: tuple[UndealtShoe, ...] | None = None
    # Who set the client seed (of the exporter's side): "client", after the commitment was
    # shown, or "server" (a placeholder the player never replaced: the guarantee that the
    # server could not choose its seed knowing the client seed does not hold); None: not said.
    client_seed_source: str | None = None
    # A player-banked seat's own seed: the banker's and the player's client seeds, whose
    # ``seat_client_seed`` is the client seed.
    client_seeds: tuple[str, str] | None = None

    @property
    def is_revealed(self) -> bool:
        return self.server_seed is not None

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {
            "server_seed": self.server_seed,
            "commitment": self.commitment,
            "client_seed": self.client_seed,
            "nonce": self.nonce,
            "cut": self.cut,
            "position": self.position,
        }
        if self.nonces_used is not None:
            line["nonces_used"] = self.nonces_used
        if self.undealt_shoes is not None:
            line["undealt_shoes"] = [shoe.to_json() for shoe in self.undealt_shoes]
        if self.client_seed_source is not None:
            line["client_seed_source"] = self.client_seed_source
        if self.client_seeds is not None:
            banker, player = self.client_seeds
            line["client_seeds"] = {"banker": banker, "player": player}
        return line


SOURCES = ("client", "server")


def seat_client_seed(banker: str, player: str) -> str:
    """The client seed of a player-banked seat's rounds: both participants' client seeds, the
    banker's first, as the JSON array ``["banker's","player's"]`` (no spaces; the JSON
    escapes keep the two apart whatever characters they hold)."""
    return json.dumps([banker, player], separators=(",", ":"), ensure_ascii=False)


def seat_client_seeds(client_seed: str) -> tuple[str, str]:
    """The banker's and the player's client seeds of a seat's client seed."""
    banker, player = json.loads(client_seed)
    return str(banker), str(player)


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A hand as recorded: its cards in dealing order and its ``[x, y]`` scores."""

    cards: tuple[Card, ...]
    scores: tuple[int, int]

    def to_json(self) -> dict[str, Any]:
        return {"cards": list(map(str, self.cards)), "scores": list(self.scores)}


@dataclass(frozen=True, slots=True)
class BetRecord:
    """One placed bet as recorded; ``returned`` includes the stake. At a multiplier table
    also its fee (taken with the stake, never returned) and the multiplier its win was paid
    with (1 unless it won); both are written only there."""

    bet: str
    stake: int
    result: str
    returned: int
    fee: int = 0
    multiplier: int = 1

    def to_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {"stake": self.stake}
        if self.fee:
            line["fee"] = self.fee
        line |= {"result": self.result, "returned": self.returned}
        if self.multiplier != 1:
            line["multiplier"] = self.multiplier
        return line


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One line of the export, read and type-checked (not yet verified)."""

    line: int
    id: str
    rules: RuleSet
    rules_name: str
    fairness: FairnessRecord
    player: HandRecord
    banker: HandRecord
    winner: Outcome | None
    bets: tuple[BetRecord, ...]
    win: int
    balance_before: int
    balance_after: int
    void_reason: str | None
    table_id: str | None = None
    mode: str | None = None
    time: str | None = None
    # Informational: the ISO 4217 code of the line's amounts, in its minor unit (cents of a
    # dollar, yen); None: not said (the server's exports say it; amounts are then cents).
    currency: str | None = None
    # Player-banked rounds: whose side this line is ("banker": the balances are the
    # banker's, who receives the stakes and pays the returns and the casino's fee).
    role: str = "player"
    fee: int = 0
    # Informational, ignored by the verifier: the participant's side of a banked round.
    banked: Mapping[str, Any] | None = None
    # The casino's signature of the line (``fairness.signing``), its key's id, and the bytes
    # it covers (the line as read, without the two).
    signature: str | None = None
    key_id: str | None = None
    signed: bytes | None = field(default=None, compare=False, repr=False)
    # A shared table's round (``{"coup", "shoe"}``): its shoe is the table's, dealt to
    # every bettor, so the coups between a player's rounds were dealt to the others.
    shared: Mapping[str, Any] | None = None
    # A shared shoe's own record (``GET /api/tables/{id}/shoes/{shoe}``): the entries of the
    # table's hash-chained log about the shoe (its commitment, beacon round and reveal).
    table_log: tuple[Mapping[str, Any], ...] | None = None
    # A multiplier table's round: its multiplier cards, in the order drawn (none elsewhere).
    lightning: tuple[Lightning, ...] = ()

    @property
    def table_shoe(self) -> bool:
        """A shared table's coup (a bettor's line, or the shoe's own record): dealt from the
        shoe's own seed, not from the exporter's nonces."""
        return bool(self.shared) or self.table_log is not None

    @property
    def is_void(self) -> bool:
        return self.void_reason is not None

    @property
    def staked(self) -> int:
        return sum(b.stake for b in self.bets)

    @property
    def fees(self) -> int:
        """The fees of a multiplier table's bets, taken with the stakes (0 elsewhere)."""
        return sum(b.fee for b in self.bets)

    @property
    def cards_used(self) -> int:
        return len(self.player.cards) + len(self.banker.cards)

    def to_json(self) -> dict[str, Any]:
        """The export line: the one writer of ``baccarat-history/1`` (the server's export,
        the example histories and a parsed line written back all come through here)."""
        line: dict[str, Any] = {
            "format": FORMAT,
            "id": self.id,
            "table_id": self.table_id,
            "mode": self.mode,
            "time": self.time,
            **({"currency": self.currency} if self.currency is not None else {}),
            "rules": self.rules_name,
            "player": self.player.to_json(),
            "banker": self.banker.to_json(),
            "winner": None if self.winner is None else self.winner.value,
            "bets": {b.bet: b.to_json() for b in self.bets},
        }
        if self.lightning:
            line["lightning"] = [one.to_json() for one in self.lightning]
        line |= {
            "win": self.win,
            "balance_before": self.balance_before,
            "balance_after": self.balance_after,
            "void_reason": self.void_reason,
            "fairness": self.fairness.to_json(),
        }
        if self.shared:
            line["shared"] = dict(self.shared)
        if self.table_log is not None:
            line["table_log"] = [dict(entry) for entry in self.table_log]
        if self.banked:
            line |= {"role": self.role, "banked": dict(self.banked), "fee": self.fee}
        elif self.role != "player" or self.fee:
            line |= {"role": self.role, "fee": self.fee}
        if self.signature is not None:
            line |= {"signature": self.signature, "key_id": self.key_id}
        return line

    def voided(self, reason: str) -> RoundRecord:
        """The same round voided (a malfunction): every stake returned (and every fee), the
        cards as dealt."""
        bets = tuple(BetRecord(b.bet, b.stake, "void", b.stake, b.fee) for b in self.bets)
        return replace(
            self, bets=bets, win=self.staked, balance_after=self.balance_before,
            void_reason=reason,
        )  # fmt: skip


ROLES = ("player", "banker")


class _Reader:
    """Typed access to one JSON object, every complaint naming the line and the field."""

    def __init__(self, line: int, data: Any, path: str = ""):
        self.line = line
        self.path = path
        if not isinstance(data, dict):
            what = f"{path} must be" if path else "each line must be"
            raise self.error(f"{what} a JSON object")
        self.data: dict[str, Any] = data

    def error(self, message: str) -> HistoryFormatError:
        return HistoryFormatError(self.line, message)

    def name(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def get(self, key: str) -> Any:
        if key not in self.data:
            raise self.error(f"{self.name(key)} is missing")
        return self.data[key]

    def text(self, key: str, *, nullable: bool = False, optional: bool = False) -> str | None:
        if optional and key not in self.data:
            return None
        value = self.get(key)
        if value is None and (nullable or optional):
            return None
        if not isinstance(value, str):
            raise self.error(f"{self.name(key)} must be a string, not {_show(value)}")
        return value

    def integer(self, key: str, *, minimum: int | None = None) -> int:
        value = self.get(key)
        if type(value) is not int:
            raise self.error(f"{self.name(key)} must be a whole number, not {_show(value)}")
        if minimum is not None and value < minimum:
            raise self.error(f"{self.name(key)} must be at least {minimum}, not {value}")
        return value

    def optional_integer(self, key: str, *, minimum: int | None = None) -> int | None:
        return None if self.get(key) is None else self.integer(key, minimum=minimum)

    def child(self, key: str) -> _Reader:
        return _Reader(self.line, self.get(key), self.name(key))


def _show(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _hand(reader: _Reader, key: str, *, void: bool) -> HandRecord:
    hand = reader.child(key)
    raw = hand.get("cards")
    if not isinstance(raw, list) or not all(isinstance(c, str) for c in raw):
        raise hand.error(f'{hand.name("cards")} must be a list of card strings such as "Td"')
    try:
        cards = tuple(Card.parse(c) for c in raw)
    except CardError as error:
        raise hand.error(f"{hand.name('cards')}: {error}") from None
    # A complete hand has 2 or 3 cards; a voided round keeps what was dealt, maybe less.
    low = 0 if void else 2
    if not low <= len(cards) <= 3:
        raise hand.error(f"{hand.name('cards')} must hold {low} to 3 cards, not {len(cards)}")
    scores = hand.get("scores")
    if (
        not isinstance(scores, list)
        or len(scores) != 2
        or not all(type(s) is int and 0 <= s <= 9 for s in scores)
    ):
        raise hand.error(f"{hand.name('scores')} must be two scores 0-9 such as [2, 5]")
    return HandRecord(cards, (scores[0], scores[1]))


def _fairness(reader: _Reader, rules: RuleSet) -> FairnessRecord:
    fair = reader.child("fairness")
    seed = fair.text("server_seed", nullable=True)
    if seed is not None and not _HEX64.match(seed):
        raise fair.error("fairness.server_seed must be 64 lowercase hex characters or null")
    commitment = fair.text("commitment")
    if commitment is None or not _HEX64.match(commitment):
        raise fair.error("fairness.commitment must be 64 lowercase hex characters")
    client_seed = fair.text("client_seed")
    assert client_seed is not None
    try:
        client_seed.encode()
    except UnicodeEncodeError:
        raise fair.error("fairness.client_seed must be valid Unicode text") from None
    nonce = fair.integer("nonce", minimum=0)
    size = rules.cards_per_shoe
    cut = fair.optional_integer("cut", minimum=0)
    if cut is not None and cut >= size:
        raise fair.error(f"fairness.cut must be below {size} (the shoe's cards), not {cut}")
    position = fair.integer("position", minimum=0)
    if position >= size:
        raise fair.error(f"fairness.position must be below {size} (the shoe's cards)")
    nonces_used = None
    if fair.data.get("nonces_used") is not None:
        nonces_used = fair.integer("nonces_used", minimum=0)
    source = fair.text("client_seed_source", optional=True)
    if source is not None and source not in SOURCES:
        raise fair.error("fairness.client_seed_source must be client, server or null")
    return FairnessRecord(
        seed, commitment, client_seed, nonce, cut, position, nonces_used, _undealt(fair),
        source, _client_seeds(fair),
    )  # fmt: skip


def _client_seeds(fair: _Reader) -> tuple[str, str] | None:
    if fair.data.get("client_seeds") is None:
        return None
    both = fair.child("client_seeds")
    banker, player = both.text("banker"), both.text("player")
    assert banker is not None and player is not None
    return banker, player


def _undealt(fair: _Reader) -> tuple[UndealtShoe, ...] | None:
    raw = fair.data.get("undealt_shoes")
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise fair.error("fairness.undealt_shoes must be a list of shoes or null")
    shoes = []
    for index, item in enumerate(raw):
        shoe = _Reader(fair.line, item, f"fairness.undealt_shoes.{index}")
        nonce = shoe.integer("nonce", minimum=0)
        cut = shoe.optional_integer("cut", minimum=0) if "cut" in shoe.data else None
        shoes.append(UndealtShoe(nonce, shoe.text("table_id", optional=True), cut))
    return tuple(shoes)


def _bets(reader: _Reader) -> tuple[BetRecord, ...]:
    bets = reader.child("bets")
    records = []
    for key in bets.data:
        if key not in BET_TYPES:
            known = ", ".join(BET_TYPES)
            raise bets.error(f"unknown bet {key!r} in bets: one of {known}")
        bet = bets.child(key)
        stake = bet.integer("stake", minimum=1)
        result = bet.text("result")
        if result not in RESULTS:
            raise bet.error(f"{bet.name('result')} must be one of {', '.join(RESULTS)}")
        returned = bet.integer("returned", minimum=0)
        fee = bet.integer("fee", minimum=0) if "fee" in bet.data else 0
        multiplier = bet.integer("multiplier", minimum=1) if "multiplier" in bet.data else 1
        records.append(BetRecord(key, stake, result, returned, fee, multiplier))
    # Settlement order: the bets' canonical order (player, banker, tie, then side bets).
    order = list(BET_TYPES)
    return tuple(sorted(records, key=lambda b: order.index(b.bet)))


def _lightning(reader: _Reader) -> tuple[Lightning, ...]:
    raw = reader.data.get("lightning")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise reader.error('lightning must be a list of {"card": "Ah", "multiplier": 5}')
    cards = []
    for index, item in enumerate(raw):
        try:
            cards.append(Lightning.from_json(item))
        except MultiplierError as error:
            raise reader.error(f"lightning.{index}: {error}") from None
    if len({one.card for one in cards}) != len(cards):
        raise reader.error("lightning: the multiplier cards of a coup are distinct cards")
    return tuple(cards)


def parse_record(data: Any, line: int = 0) -> RoundRecord:
    """One round from its parsed JSON object; raises ``HistoryFormatError``."""
    reader = _Reader(line, data)
    if reader.get("format") != FORMAT:
        raise reader.error(f"format must be {FORMAT!r}, not {_show(reader.get('format'))}")
    round_id = reader.text("id")
    assert round_id is not None
    rules_name = reader.text("rules")
    assert rules_name is not None
    try:
        rules = get_rules(rules_name)
    except RuleSetError as error:
        raise reader.error(f"rules: {error}") from None
    void_reason = reader.text("void_reason", nullable=True)
    void = void_reason is not None
    fairness = _fairness(reader, rules)
    player = _hand(reader, "player", void=void)
    banker = _hand(reader, "banker", void=void)
    role = reader.text("role", optional=True) or "player"
    if role not in ROLES:
        raise reader.error(f"role must be player or banker, not {_show(role)}")
    fee = reader.integer("fee", minimum=0) if "fee" in reader.data else 0
    winner_text = reader.get("winner")
    if winner_text is None and void:
        winner = None
    else:
        try:
            winner = Outcome(winner_text)
        except ValueError:
            allowed = "player, banker or tie" + (" (or null)" if void else "")
            raise reader.error(f"winner must be {allowed}, not {_show(winner_text)}") from None
    bets = _bets(reader)
    for bet in bets:
        if not rules.offers(bet.bet):
            raise reader.error(f"bets: {rules_name} has no {bet.bet} bet")
    return RoundRecord(
        line=line,
        id=round_id,
        rules=rules,
        rules_name=rules_name,
        fairness=fairness,
        player=player,
        banker=banker,
        winner=winner,
        bets=bets,
        win=reader.integer("win", minimum=0),
        balance_before=reader.integer("balance_before"),
        balance_after=reader.integer("balance_after"),
        void_reason=void_reason,
        table_id=reader.text("table_id", optional=True),
        mode=reader.text("mode", optional=True),
        time=reader.text("time", optional=True),
        currency=reader.text("currency", optional=True),
        role=role,
        fee=fee,
        banked=banked if isinstance(banked := reader.data.get("banked"), dict) else None,
        signature=reader.text("signature", optional=True),
        key_id=reader.text("key_id", optional=True),
        signed=line_message(reader.data) if "signature" in reader.data else None,
        shared=shared if isinstance(shared := reader.data.get("shared"), dict) else None,
        table_log=_table_log(reader),
        lightning=_lightning(reader),
    )


def _table_log(reader: _Reader) -> tuple[Mapping[str, Any], ...] | None:
    entries = reader.data.get("table_log")
    if entries is None:
        return None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise reader.error("table_log must be a list of log entries (objects)")
    return tuple(entries)


def _number(text: str) -> int | float:
    """A JSON number written with a fraction or an exponent: JSON has one kind of number, and
    the browser's verifier reads ``1.0`` and ``1e3`` as the whole numbers 1 and 1000; so does
    this one, so that the two give every export the same report."""
    value = float(text)
    return int(value) if value.is_integer() else value


def parse_line(text: str | bytes, line: int) -> RoundRecord | None:
    """One line of the export, or None for a blank line."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise HistoryFormatError(line, "not UTF-8 text") from None
    if not text.strip():
        return None
    try:
        data = json.loads(text, parse_float=_number)
    except json.JSONDecodeError as error:
        raise HistoryFormatError(line, f"not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise HistoryFormatError(line, "not JSON (nested too deeply)") from None
    return parse_record(data, line)


def parse_history(lines: Iterable[str | bytes]) -> list[RoundRecord]:
    """Every round of an export, oldest first, given its lines (numbered from 1)."""
    records = []
    for number, text in enumerate(lines, start=1):
        record = parse_line(text, number)
        if record is not None:
            records.append(record)
    return records


def export_round(
    *,
    round_id: str,
    rules: RuleSet,
    fairness: FairnessRecord,
    coup: Coup,
    settlement: Settlement,
    balance_before: int,
    table_id: str | None = None,
    mode: str | None = None,
    time: str | None = None,
    lightning: tuple[Lightning, ...] = (),
) -> RoundRecord:
    """The record of a settled (not voided) round; at a multiplier table with its multiplier
    cards, and the fees taken with the stakes."""
    win = settlement.returned
    return RoundRecord(
        line=0,
        id=round_id,
        rules=rules,
        rules_name=rules.name,
        fairness=fairness,
        player=HandRecord(coup.player.cards, coup.player.scores),
        banker=HandRecord(coup.banker.cards, coup.banker.scores),
        winner=coup.winner,
        bets=tuple(
            BetRecord(b.bet, b.stake, b.result.value, b.returned, b.fee, b.multiplier)
            for b in settlement.bets
        ),
        win=win,
        balance_before=balance_before,
        balance_after=balance_before - settlement.staked - settlement.fees + win,
        void_reason=None,
        table_id=table_id,
        mode=mode,
        time=time,
        lightning=lightning,
    )


def void_export(line: Mapping[str, Any], reason: str) -> dict[str, Any]:
    """An export line voided (``RoundRecord.voided``), keeping the keys it had."""
    return {**line, **parse_record(line).voided(reason).to_json()}


def verifier_query(record: RoundRecord) -> str:
    """The query string that opens this round in the browser verifier (``verify.html?...``)."""
    fair = record.fairness
    params: dict[str, str] = {}
    if fair.server_seed is not None:
        params["server_seed"] = fair.server_seed
    params |= {
        "client_seed": fair.client_seed,
        "nonce": str(fair.nonce),
        "decks": str(record.rules.decks),
        "position": str(fair.position),
        "commitment": fair.commitment,
        "rules": record.rules.name,
    }
    if fair.cut is not None:
        params["cut"] = str(fair.cut)
    return urlencode(params)
