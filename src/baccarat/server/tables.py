"""Tables: a rule set, chips and limits each, read from TOML, with the exact RTP per bet.

A table offers the three main bets (with ``Limits``) and the side bets of its rule set that
its ``[table.bets.NAME]`` sections name, each with its own ``min`` and ``max``.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

from baccarat.core import (
    BET_TYPES,
    MAIN_BETS,
    Bets,
    RuleSet,
    ShufflePolicy,
    fee_of,
    get_rules,
    parse_money,
)
from baccarat.server.currencies import HOME, digits, format_amount, parse_amount
from baccarat.server.errors import ServiceError
from baccarat.server.settings import Settings

T = TypeVar("T")

# How many bet sets a table remembers it takes (``Table.takes``) before it forgets them all.
_TAKEN_MAX = 4096


class TableConfigError(ValueError):
    """The tables file cannot be used."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Cents. ``min``/``max`` bound each Player or Banker bet; the tie has its own three."""

    min: int
    max: int
    tie_min: int
    tie_min_alone: int
    tie_max: int

    def to_json(self) -> dict[str, int]:
        return {
            "min": self.min,
            "max": self.max,
            "tie_min": self.tie_min,
            "tie_min_alone": self.tie_min_alone,
            "tie_max": self.tie_max,
        }


@dataclass(frozen=True, slots=True)
class BetLimits:
    """Cents: the least and the most a side bet takes."""

    min: int
    max: int


class Terms(Protocol):
    """A table kind's own terms, from its section of the tables file (``banked = {...}``)."""

    def to_json(self) -> dict[str, Any]: ...


class KindReader(Protocol):
    """What the tables file needs of a table kind (``kinds.TableKind``): the name of its
    section (a table with none is a house table), whether it takes side bets and other
    currencies than HOME (why not, if it does not), and its terms read from its section."""

    name: ClassVar[str]
    side_bets: ClassVar[bool]
    one_currency: ClassVar[str | None]

    @staticmethod
    def terms(
        raw: Any, rules: RuleSet, limits: Limits, where: str, settings: Settings | None
    ) -> Terms | None: ...


@dataclass(frozen=True)
class Table:
    id: str
    name: str
    rules: RuleSet
    chips: tuple[int, ...]
    limits: Limits
    source: str = ""
    rtp: Mapping[str, Fraction] = field(default_factory=dict)
    # A multiplier table's exact figures per bet besides its RTP (``analysis.multiplier``:
    # the standard deviation, the largest multiplier and how rare it is, ...).
    figures: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Its kind (``kinds.KINDS``: house, shared, banked) and the kind's own terms (none for a
    # house table), which only the kind's package reads.
    kind: str = "house"
    terms: Terms | None = None
    # The side bets the table takes (a subset of its rule set's), in the rule set's order.
    side_bets: Mapping[str, BetLimits] = field(default_factory=dict)
    # The table in other currencies than HOME: its chips and limits in each (minor units).
    currencies: Mapping[str, Table] = field(default_factory=dict)

    @property
    def offered_currencies(self) -> tuple[str, ...]:
        """The currencies the table has limits in (a round on an operator's wallet)."""
        return (HOME, *self.currencies)

    def for_currency(self, code: str) -> Table:
        """The table in a player's currency (its chips and limits in it), or a refusal: a
        table offers only the currencies it has limits in (a shared or player-banked table
        has none but ``HOME``: one pot for every player)."""
        found = self.in_currency(code)
        if found is None:
            raise ServiceError(
                "unsupported_currency",
                f"table {self.id} has no limits in {code}: it plays in "
                f"{', '.join(self.offered_currencies)}",
                currency=code, table=self.id,
            )  # fmt: skip
        return found

    def in_currency(self, code: str) -> Table | None:
        """The table with its chips and limits in ``code`` (None: it has none in it)."""
        return self if code == HOME else self.currencies.get(code)

    def terms_as(self, kind: type[T]) -> T:
        """Its kind's terms, as that kind reads them (``kind``: their type; a table of
        another kind is a bug: AssertionError)."""
        terms = self.terms
        assert isinstance(terms, kind), f"table {self.id} has no {kind.__name__}"
        return terms

    # The currency its chips and limits are in (a variant of ``currencies``: not HOME).
    currency: str = HOME

    @cached_property
    def bets(self) -> tuple[str, ...]:
        """Every bet the table takes: the main bets, then its side bets."""
        return (*MAIN_BETS, *self.side_bets)

    @property
    def is_cut_shoe(self) -> bool:
        return self.rules.shuffle is ShufflePolicy.CUT_SHOE

    @cached_property
    def unit(self) -> int:
        """Every stake is a multiple of this: what the table's chips can make."""
        return math.gcd(*self.chips)

    def takes(self, bets: Bets) -> bool:
        """Whether the table takes these bets (``check_bets`` passes), remembered: the
        answer of every house round asks it of the round's bets and of twice them."""
        known = self._taken.get(bets)
        if known is None:
            try:
                self.check_bets(bets)
                known = True
            except ServiceError:
                known = False
            if len(self._taken) >= _TAKEN_MAX:
                self._taken.clear()
            self._taken[bets] = known
        return known

    @cached_property
    def _taken(self) -> dict[Bets, bool]:
        return {}

    def check_bets(self, bets: Bets) -> None:
        """Refuse bets outside the table's limits (nothing is debited then)."""
        if bets.total == 0:
            raise ServiceError("no_bets", "place at least one bet")
        limits, code = self.limits, self.currency

        def money(minor: int) -> str:
            return format_amount(minor, code)

        for bet, _ in bets.placed():
            if bet not in MAIN_BETS and bet not in self.side_bets:
                raise ServiceError(
                    "bet_not_offered",
                    f"this table does not take {bet} bets: it takes {', '.join(self.bets)}",
                    bet=bet, offered=list(self.bets),
                )  # fmt: skip
        for bet, bounds in self.side_bets.items():
            _check_limits(bet, bets.stake(bet), bounds.min, bounds.max, code)
        for kind in ("player", "banker"):
            _check_limits(kind, bets.stake(kind), limits.min, limits.max, code)
        tie = bets.stake("tie")
        if tie:
            alone = not (bets.stake("player") or bets.stake("banker"))
            minimum = limits.tie_min_alone if alone else limits.tie_min
            which = "for a lone tie bet" if alone else "beside another bet"
            if tie < minimum:
                raise ServiceError(
                    "tie_below_min",
                    f"the tie bet {money(tie)} is below the minimum {money(minimum)} {which}",
                    bet="tie", stake=tie, min=minimum, alone=alone, currency=code,
                )  # fmt: skip
            if tie > limits.tie_max:
                raise ServiceError(
                    "tie_above_max",
                    f"the tie bet {money(tie)} is above the maximum {money(limits.tie_max)}",
                    bet="tie", stake=tie, max=limits.tie_max, currency=code,
                )  # fmt: skip
        # Every stake a whole multiple of what makes a multiplier table's fee exact, and of
        # what the table's chips make.
        for error, multiple in (("not_a_fee_multiple", self.fee_unit),
                                ("not_a_chip_multiple", self.unit)):  # fmt: skip
            for kind, stake in bets.placed():
                if stake % multiple:
                    raise ServiceError(
                        error, f"the {kind} bet {money(stake)} {self._unmade(error, multiple)}",
                        bet=kind, stake=stake, unit=multiple, currency=code,
                    )  # fmt: skip

    def _unmade(self, error: str, multiple: int) -> str:
        """Why a stake that is no whole multiple of ``multiple`` is refused (``error``)."""
        unit = format_amount(multiple, self.currency)
        if error == "not_a_fee_multiple":
            return (
                f"is not a whole multiple of {unit}: at this table a fee of {self.fee_text} of "
                "each stake is taken with it, and stakes are multiples of what makes it exact"
            )
        return f"cannot be made of this table's chips: stakes are multiples of {unit}"

    @property
    def fee_unit(self) -> int:
        """Every stake is a multiple of this so that its fee is whole minor units (1 where
        no fee is taken)."""
        terms = self.rules.multipliers
        return 1 if terms is None else terms.fee_unit

    @property
    def fee_text(self) -> str:
        """The fee taken with each stake, as a fraction ("1/5"; "0" where none is)."""
        terms = self.rules.multipliers
        return "0" if terms is None else str(terms.fee)

    def wagered(self, bets: Bets) -> int:
        """What the bets take from the balance: their stakes and the fee taken with them."""
        return bets.total + fees_of(self.rules, bets)

    def bet_limits(self, bet: str) -> BetLimits:
        """The least and the most one bet takes (the tie's least is the lone tie bet's)."""
        if bet == "tie":
            return BetLimits(self.limits.tie_min_alone, self.limits.tie_max)
        if bet in MAIN_BETS:
            return BetLimits(self.limits.min, self.limits.max)
        return self.side_bets[bet]

    def bets_json(self) -> dict[str, dict[str, Any]]:
        """``{name: {"min", "max", "unit", "pays", "rtp", "rtp_exact", "rtp_percent"}}`` for
        every bet the table takes: its limits and the multiple its stakes are made of (the
        chips' unit), the pay table's lines (pays "to one", or "push") and the exact RTP
        (null if not known), as a fraction ("n/d") beside its percentage; at a multiplier
        table its RTP per unit wagered (the stake and its fee) and its other exact figures
        (``multiplier``)."""
        answer = {}
        for bet in self.bets:
            bounds = self.bet_limits(bet)
            rtp = self.rtp.get(bet)
            answer[bet] = {
                "min": bounds.min,
                "max": bounds.max,
                "unit": self.unit,
                "pays": self.rules.paytable(bet).to_json(),
                "rtp": None if rtp is None else float(rtp),
                "rtp_exact": None if rtp is None else f"{rtp.numerator}/{rtp.denominator}",
                "rtp_percent": None if rtp is None else f"{float(rtp) * 100:.4f}",
            }
            if bet in self.figures:
                answer[bet]["multiplier"] = dict(self.figures[bet])
        if "tie" in answer:
            answer["tie"]["min_beside"] = self.limits.tie_min
        return answer

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "rules": self.rules.to_json(),
            "chips": list(self.chips),
            "limits": self.limits.to_json(),
            "bets": self.bets_json(),
            "rtp": {kind: float(self.rtp[kind]) for kind in self.bets if kind in self.rtp},
            "cut_shoe": self.is_cut_shoe,
            "source": self.source,
            "currencies": list(self.offered_currencies),
            "currency": self.currency,
            "banked": None,
            "shared": None,
        } | ({} if self.terms is None else {self.kind: self.terms.to_json()})


def fees_of(rules: RuleSet, bets: Bets) -> int:
    """The fee taken with these bets' stakes: each bet's (``core.fee_of``; 0 where no fee
    is taken). Its stakes are whole multiples of the fee's unit (``Table.check_bets``)."""
    if rules.multipliers is None:
        return 0
    return sum(fee_of(rules, stake) for _, stake in bets.placed())


def bets_from(stakes: Mapping[str, int]) -> Bets:
    """Stakes by bet name as ``Bets``; a name that is no bet at all is ``bet_not_offered``
    like a bet the table does not take (``Table.check_bets``)."""
    for name in stakes:
        if name not in BET_TYPES:
            raise ServiceError(
                "bet_not_offered", f"there is no {name!r} bet", bet=name, offered=list(BET_TYPES)
            )
    return Bets(stakes)


# A stake past one of its limits: the refusal's code and words, by the limit's name.
_PAST_LIMIT = {
    "min": ("bet_below_table_min", "below the table minimum"),
    "max": ("bet_above_table_max", "above the table maximum"),
}


def _check_limits(bet: str, stake: int, low: int, high: int, code: str) -> None:
    """A bet's stake between its limits (amounts of the currency ``code``), or a refusal
    that writes them in it."""
    if not stake or low <= stake <= high:
        return
    name, limit = ("min", low) if stake < low else ("max", high)
    error, past = _PAST_LIMIT[name]
    raise ServiceError(
        error,
        f"the {bet} bet {format_amount(stake, code)} is {past} {format_amount(limit, code)}",
        bet=bet, stake=stake, **{name: limit}, currency=code,
    )  # fmt: skip


class TableSet(Mapping[str, Table]):
    """The casino's tables by id, in the order of the file."""

    def __init__(self, tables: list[Table]):
        self._tables = {table.id: table for table in tables}

    def __getitem__(self, table_id: str) -> Table:
        return self._tables[table_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def require(self, table_id: str) -> Table:
        table = self._tables.get(table_id)
        if table is None:
            raise ServiceError("unknown_table", f"there is no table {table_id!r}", table=table_id)
        return table


Amount = Callable[[Any, str], int]  # an amount of the tables file, in minor units


def money_amount(value: Any, where: str) -> int:
    """An amount of the tables file in HOME's cents (``"2.50"``), or why it cannot be."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise TableConfigError(f'{where}: write amounts as text, like "2.50"')
    cents = parse_money(str(value))
    if cents <= 0:
        raise TableConfigError(f"{where}: an amount must be positive")
    return cents


def _table(
    raw: Mapping[str, Any], index: int, kinds: Mapping[str, type[KindReader]],
    settings: Settings | None, amount: Amount | None = None,
) -> Table:  # fmt: skip
    amount = amount or money_amount
    where = f"table {index + 1}"
    try:
        table_id = str(raw["id"])
        rules = get_rules(str(raw["rules"]))
        chips = tuple(amount(c, f"{where} chips") for c in raw["chips"])
        low, high = amount(raw["min"], f"{where} min"), amount(raw["max"], f"{where} max")
    except KeyError as missing:
        raise TableConfigError(f"{where}: {missing.args[0]!r} is missing") from None
    except ValueError as error:
        raise TableConfigError(f"{where}: {error}") from None
    if not table_id or not table_id.replace("-", "").replace("_", "").isalnum():
        raise TableConfigError(f"{where}: an id is letters, digits, '-' and '_'")
    where = f"table {index + 1} ({table_id})"
    if not chips or low > high:
        raise TableConfigError(f"{where}: needs chips and min <= max")
    limits = Limits(
        min=low,
        max=high,
        tie_min=amount(raw.get("tie_min", raw["min"]), f"{where} tie_min"),
        tie_min_alone=amount(raw.get("tie_min_alone", raw["min"]), f"{where} tie_min_alone"),
        tie_max=amount(raw.get("tie_max", raw["max"]), f"{where} tie_max"),
    )
    if max(limits.tie_min, limits.tie_min_alone) > limits.tie_max:
        raise TableConfigError(f"{where}: the tie minimums exceed tie_max")
    named = [name for name in kinds if name in raw]
    if len(named) > 1:
        raise TableConfigError(f"{where}: a table is of one kind: {' or '.join(named)}, not both")
    kind = kinds[named[0]] if named else None
    terms = None if kind is None else kind.terms(raw[kind.name], rules, limits, where, settings)
    if kind is not None and terms is None:
        raise TableConfigError(f"{where}: a {kind.name} table has no section of its own")
    side = _side_bets(raw.get("bets"), rules, where, amount)
    if side and kind is not None and not kind.side_bets:
        raise TableConfigError(f"{where}: a {kind.name} table takes the three main bets only")
    if kind is not None and kind.one_currency is not None and "currencies" in raw:
        raise TableConfigError(f"{where}: {kind.one_currency}")
    _check_fee_unit(rules, chips, where)
    variants = _currencies(raw, index, kinds, settings, where, side)
    return Table(table_id, str(raw.get("name", table_id)), rules, chips, limits,
                 str(raw.get("source", "")), kind="house" if kind is None else kind.name,
                 terms=terms, side_bets=side, currencies=variants)  # fmt: skip


def _check_fee_unit(rules: RuleSet, chips: tuple[int, ...], where: str) -> None:
    """At a multiplier table every stake's fee is whole minor units: the chips make only
    multiples of the fee's unit (5 minor units for a fee of 1/5)."""
    terms = rules.multipliers
    if terms is not None and math.gcd(*chips) % terms.fee_unit:
        raise TableConfigError(
            f"{where}: rules {rules.name!r} take a fee of {terms.fee} of each stake: the "
            f"chips must make whole multiples of {terms.fee_unit} minor units only"
        )


_TERMS = ("chips", "min", "max", "tie_min", "tie_min_alone", "tie_max", "bets")


def _currencies(
    raw: Mapping[str, Any], index: int, kinds: Mapping[str, type[KindReader]],
    settings: Settings | None, where: str, side: Mapping[str, BetLimits],
) -> dict[str, Table]:  # fmt: skip
    """``[table.currencies.CODE]`` sections: the table's chips and limits (and its side
    bets' limits) in another currency, in that currency's units (ISO 4217, from Babel)."""
    entries = raw.get("currencies")
    if entries is None:
        return {}
    if not isinstance(entries, Mapping):
        raise TableConfigError(f"{where}: currencies is a table of [table.currencies.CODE]")
    base = {k: v for k, v in raw.items() if k not in (*_TERMS, "currencies")}
    found = {}
    for code, entry in entries.items():
        at = f"{where} currencies.{code}"
        try:
            digits(code)
        except ValueError as error:
            raise TableConfigError(f"{at}: {error}") from None
        if code == HOME or not isinstance(entry, Mapping) or set(entry) - set(_TERMS):
            raise TableConfigError(f"{at}: a currency other than {HOME} with only "
                                   f"{', '.join(_TERMS)}")  # fmt: skip

        def amount(value: Any, place: str, code: str = code) -> int:
            try:
                minor = parse_amount(value, code)
            except ValueError as error:
                raise TableConfigError(f"{place} ({code}): {error}") from None
            if minor <= 0:
                raise TableConfigError(f"{place} ({code}): an amount must be positive")
            return minor

        variant = _table({**base, **entry}, index, kinds, settings, amount)
        variant = replace(variant, currency=code)
        if set(variant.side_bets) != set(side):
            raise TableConfigError(f"{at}: give the limits of the same side bets in {code}")
        found[code] = variant
    return found


def _side_bets(
    raw: Any, rules: RuleSet, where: str, amount: Amount | None = None
) -> dict[str, BetLimits]:
    """``[table.bets.NAME]`` sections: the side bets offered, each with ``min`` and ``max``."""
    amount = amount or money_amount
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise TableConfigError(f"{where}: bets is a table of [table.bets.NAME] sections")
    for bet in raw:
        if bet in MAIN_BETS:
            raise TableConfigError(f"{where}: the {bet} bet's limits are the table's min and max")
        if not rules.offers(bet):
            offered = ", ".join(b for b in rules.bets if b not in MAIN_BETS)
            raise TableConfigError(f"{where}: {rules.name} has no {bet!r} bet (it has {offered})")
    found = {}
    for bet in rules.bets:  # the rule set's order
        if bet not in raw:
            continue
        entry = raw[bet]
        try:
            low = amount(entry["min"], f"{where} bets.{bet}.min")
            high = amount(entry["max"], f"{where} bets.{bet}.max")
        except (KeyError, TypeError):
            raise TableConfigError(f"{where}: bets.{bet} needs a min and a max") from None
        except ValueError as error:
            raise TableConfigError(f"{where}: bets.{bet}: {error}") from None
        if low > high:
            raise TableConfigError(f"{where}: bets.{bet} needs min <= max")
        found[bet] = BetLimits(low, high)
    return found


def read_tables(
    path: Path | None, kinds: Mapping[str, type[KindReader]], settings: Settings | None
) -> TableSet:
    """The tables of a TOML file (default: the package's own), with exact RTPs computed;
    each table's kind (``kinds``, by the name of its section) reads its own terms (a
    player-banked table's decision times are the settings')."""
    if path is None:
        text = resources.files("baccarat.server").joinpath("tables.toml").read_text("utf-8")
    else:
        text = Path(path).read_text("utf-8")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TableConfigError(f"the tables file is not valid TOML: {error}") from None
    entries = raw.get("table")
    if not isinstance(entries, list) or not entries:
        raise TableConfigError("the tables file has no [[table]] entries")
    tables = [_table(entry, i, kinds, settings) for i, entry in enumerate(entries)]
    if len({t.id for t in tables}) != len(tables):
        raise TableConfigError("two tables have the same id")
    # The exact analysis is done once per distinct rule set.
    exact: dict[RuleSet, dict[str, Any]] = {}
    for table in tables:
        if table.rules not in exact:
            exact[table.rules] = _exact(table.rules)
    return TableSet([
        replace(t, **exact[t.rules],
                currencies={c: replace(v, **exact[t.rules]) for c, v in t.currencies.items()})
        for t in tables
    ])  # fmt: skip


# The exact figures of the rule sets of the package's own tables, computed once and shipped
# with it: computing them costs every server process about two seconds of CPU at its start
# (the multiplier analysis above all), and the test suite starts many. A rule set that is not
# in the file (an operator's own) is computed when its tables are read. The file is written
# by ``write_exact_file`` (``make exact``); a test computes every entry again.
EXACT_FILE = "exact.json"


def exact_key(rules: RuleSet) -> str:
    """A rule set's entry in the exact file: the digest of everything that defines it."""
    return hashlib.sha256(repr(rules).encode()).hexdigest()[:32]


@cache
def shipped_exact() -> Mapping[str, Any]:
    """The exact file's entries by ``exact_key``, as ``exact_json`` wrote them."""
    text = resources.files("baccarat.server").joinpath(EXACT_FILE).read_text("utf-8")
    entries: dict[str, Any] = json.loads(text)
    return entries


def exact_json(rules: RuleSet) -> dict[str, Any]:
    """A rule set's exact figures as the exact file holds them (fractions as "n/d")."""
    found = compute_exact(rules)
    return {
        "rules": rules.name,
        "rtp": {bet: f"{rtp.numerator}/{rtp.denominator}" for bet, rtp in found["rtp"].items()},
        "figures": found.get("figures", {}),
    }


def write_exact_file(path: Path, tables: TableSet) -> None:
    """The exact file of these tables' rule sets (``make exact``: the package's own)."""
    rules = {table.rules for table in tables.values()}
    entries = {exact_key(r): exact_json(r) for r in sorted(rules, key=lambda r: r.name)}
    path.write_text(json.dumps(dict(sorted(entries.items())), indent=1) + "\n", "utf-8")


def _exact(rules: RuleSet) -> dict[str, Any]:
    """A rule set's exact figures, as a table keeps them: shipped, or computed."""
    entry = shipped_exact().get(exact_key(rules))
    if entry is None:
        return compute_exact(rules)
    return {
        "rtp": {bet: Fraction(rtp) for bet, rtp in entry["rtp"].items()},
        "figures": entry["figures"],
    }


def compute_exact(rules: RuleSet) -> dict[str, Any]:
    """A rule set's exact figures, as a table keeps them (``rtp``, ``figures``): the exact
    analyser's, or at a multiplier table the multiplier analysis's (RTP per unit wagered)."""
    from baccarat.analysis import analyse
    from baccarat.analysis.multiplier import exact

    if rules.multipliers is None:
        return {"rtp": {kind: odds.rtp for kind, odds in analyse(rules).bets.items()}}
    found = exact(rules).bets
    return {
        "rtp": {kind: bet.rtp for kind, bet in found.items()},
        "figures": {kind: _figures(bet.to_json()) for kind, bet in found.items()},
    }


def _figures(figures: Mapping[str, Any]) -> dict[str, Any]:
    """A multiplier bet's exact figures besides its RTP (said once, in ``bets_json``)."""
    return {k: v for k, v in figures.items() if k not in ("rtp", "rtp_percent", "pays")}
