"""Scoreboards ("roads") of live baccarat, computed from a sequence of results.

Five roads, as casinos draw them (Wizard of Odds, "Baccarat Score Boards", describing the
Venetian's signs; the derived roads' start cells as live-casino help pages state them):

- **bead plate**: every result in order, down six rows then the next column;
- **big road**: Banker and Player wins only; a *logical column* per run of one winner.
  Drawn in a 6-row grid: a run goes down, and turns right (the "dragon tail") when the
  column is full or the cell below is taken; once it turned it keeps going right. A tie
  is a slash on the entry before it, with the count of ties. Ties before the first
  Banker or Player win are drawn as a slash in the first (empty) cell, and the first win
  is then written into that same cell, so they count on the first entry.
- **big eye boy**, **small road**, **cockroach pig**: derived from the big road's
  logical columns with an offset of 1, 2 and 3 columns. For each new big road entry at
  column ``c``, row ``r`` (0-based):

  * ``r == 0`` (a new column): red when the two columns before it, ``c-1`` and
    ``c-1-k``, are of equal length, blue otherwise;
  * ``r >= 1``: look at column ``c-k``: red when it has a cell in row ``r`` (the cell to
    the left), or when it ended before row ``r - 1`` (left and above-left both empty);
    blue when it ended exactly at row ``r - 1`` (left empty, above-left filled).

  A road starts marking once its reference columns exist: big eye boy at column 2 row 2
  (or column 3 row 1 when column 2 has one entry), small road one column further,
  cockroach pig two further. Red means repetition ("orderly"), blue a chop. Each derived
  road is laid out in its own 6-row grid: a run of one colour goes down, a new colour
  starts a new column, with the same dragon tail.

The **ask** of a derived road is the colour it would add if the next result were Banker
(or Player); ``None`` when it would add nothing yet. Past results do not change the odds
of the next coup; the roads are a record, not a prediction.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .coup import Outcome

ROWS = 6
LETTERS = {"B": Outcome.BANKER, "P": Outcome.PLAYER, "T": Outcome.TIE}
DERIVED = (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3))


class Colour(enum.Enum):
    """A derived road's mark: red for repetition, blue for a chop."""

    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class RoadResult:
    """One coup as the roads see it: the winner and the pair and natural flags."""

    winner: Outcome
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False

    @property
    def letter(self) -> str:
        """``B``, ``P`` or ``T``."""
        return self.winner.value[0].upper()

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.letter,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "natural": self.natural,
        }

    @classmethod
    def parse_many(cls, text: str) -> tuple[RoadResult, ...]:
        """Results from letters, spaces and commas ignored.

        >>> [r.letter for r in RoadResult.parse_many("b p, T")]
        ['B', 'P', 'T']
        """
        results = []
        for char in text.upper():
            if char in " ,":
                continue
            if char not in LETTERS:
                raise ValueError(f"bad result {char!r}: use B, P or T (e.g. 'BPPTB')")
            results.append(cls(LETTERS[char]))
        return tuple(results)


@dataclass(frozen=True, slots=True)
class Cell:
    """A position in a road's drawn grid: column from the left, row from the top."""

    col: int
    row: int

    def to_json(self) -> dict[str, int]:
        return {"col": self.col, "row": self.row}


@dataclass(frozen=True, slots=True)
class BigRoadEntry:
    """One Banker or Player win on the big road, with the ties that followed it."""

    result: RoadResult
    ties: int
    cell: Cell


@dataclass(frozen=True, slots=True)
class DerivedRoad:
    """Big eye boy, small road or cockroach pig: its marks and where each is drawn."""

    name: str
    marks: tuple[Colour, ...]
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class Roads:
    """All five roads of a sequence of results, and each derived road's ask."""

    bead: tuple[RoadResult, ...]
    big_road: tuple[tuple[BigRoadEntry, ...], ...]
    derived: tuple[DerivedRoad, ...]
    ask: dict[Outcome, dict[str, Colour | None]]

    def road(self, name: str) -> DerivedRoad:
        return next(road for road in self.derived if road.name == name)

    def to_json(self) -> dict[str, Any]:
        """The roads as the CLI prints them (logical columns, no grid positions)."""
        data: dict[str, Any] = {
            "bead": [r.letter for r in self.bead],
            "big_road": [[e.result.letter for e in column] for column in self.big_road],
            "ties": [[e.ties for e in column] for column in self.big_road],
        }
        for road in self.derived:
            data[road.name] = [mark.value for mark in road.marks]
        data["ask"] = {
            outcome.value: {
                name: None if colour is None else colour.value for name, colour in ask.items()
            }
            for outcome, ask in self.ask.items()
        }
        return data

    def layout_json(self) -> dict[str, Any]:
        """Every drawn cell with its grid position, for a browser to draw."""
        return {
            "rows": ROWS,
            "bead": [
                {**Cell(i // ROWS, i % ROWS).to_json(), **r.to_json()}
                for i, r in enumerate(self.bead)
            ],
            "big_road": [
                {**e.cell.to_json(), "ties": e.ties, **e.result.to_json()}
                for column in self.big_road
                for e in column
            ],
            "leading_ties": leading_ties(self.bead) if not self.big_road else 0,
            **{
                road.name: [
                    {**cell.to_json(), "colour": mark.value}
                    for mark, cell in zip(road.marks, road.cells, strict=True)
                ]
                for road in self.derived
            },
            "ask": {outcome.value: self.ask_cells(outcome) for outcome in self.ask},
        }

    def ask_cells(self, outcome: Outcome) -> dict[str, dict[str, Any] | None]:
        """Where the next result ``outcome`` would draw on each road (``None``: nowhere),
        so that a board can show it, as live tables flash the ask on every road.

        >>> compute_roads(RoadResult.parse_many("BPP")).ask_cells(Outcome.BANKER)["big_road"]
        {'col': 2, 'row': 0}
        """
        after = compute_roads((*self.bead, RoadResult(outcome)))
        last = after.big_road[-1][-1].cell
        cells: dict[str, dict[str, Any] | None] = {"big_road": last.to_json()}
        for old, new in zip(self.derived, after.derived, strict=True):
            if len(new.marks) == len(old.marks):
                cells[new.name] = None
                continue
            cell = new.cells[-1]
            cells[new.name] = {**cell.to_json(), "colour": new.marks[-1].value}
        return cells


def leading_ties(results: Sequence[RoadResult]) -> int:
    """How many ties come before the first Banker or Player win."""
    count = 0
    for result in results:
        if result.winner is not Outcome.TIE:
            break
        count += 1
    return count


def place_columns(lengths: Sequence[int], rows: int = ROWS) -> list[list[Cell]]:
    """Grid cells of logical columns of the given lengths, with dragon tails.

    A column starts at the top of the column right of the previous column's start (further
    right if an earlier tail took that cell), goes down, and turns right for good when the
    grid is full or the cell below is taken.

    >>> [[(c.col, c.row) for c in col] for col in place_columns([3, 1], rows=2)]
    [[(0, 0), (0, 1), (1, 1)], [(1, 0)]]
    """
    taken: set[tuple[int, int]] = set()
    placed: list[list[Cell]] = []
    start = -1
    for length in lengths:
        start += 1
        while (start, 0) in taken:
            start += 1
        col, row, turned = start, 0, False
        cells = []
        for i in range(length):
            if i > 0:
                if not turned and row + 1 < rows and (col, row + 1) not in taken:
                    row += 1
                else:
                    col, turned = col + 1, True
            taken.add((col, row))
            cells.append(Cell(col, row))
        placed.append(cells)
    return placed


def derived_mark(lengths: Sequence[int], offset: int) -> Colour | None:
    """The mark a derived road adds for the big road's newest entry, or ``None``.

    ``lengths`` are the big road's logical column lengths, the last one ending in the
    newest entry; ``offset`` is 1 (big eye boy), 2 (small road) or 3 (cockroach pig).

    >>> derived_mark([2, 2], 1), derived_mark([1, 1], 1), derived_mark([1, 2], 1)
    (<Colour.RED: 'red'>, None, <Colour.BLUE: 'blue'>)
    """
    col = len(lengths) - 1
    row = lengths[-1] - 1
    if row == 0:
        if col < offset + 1:
            return None
        return Colour.RED if lengths[col - 1] == lengths[col - 1 - offset] else Colour.BLUE
    if col < offset:
        return None
    # Blue only when the compared column ended exactly one row above this entry.
    return Colour.BLUE if lengths[col - offset] == row else Colour.RED


def runs(items: Iterable[Any]) -> list[int]:
    """Lengths of the runs of equal items: ``runs("aab") == [2, 1]``."""
    lengths: list[int] = []
    previous: Any = object()
    for item in items:
        if lengths and item == previous:
            lengths[-1] += 1
        else:
            lengths.append(1)
        previous = item
    return lengths


def compute_roads(results: Iterable[RoadResult]) -> Roads:
    """All five roads and the ask for a sequence of results, oldest first.

    >>> roads = compute_roads(RoadResult.parse_many("BBPB"))
    >>> roads.to_json()["big_road"], roads.to_json()["big_eye_boy"]
    ([['B', 'B'], ['P'], ['B']], ['blue'])
    """
    bead = tuple(results)
    wins = [r for r in bead if r.winner is not Outcome.TIE]
    ties = [0] * len(wins)
    seen = 0  # wins so far; ties before the first win count on the first entry
    for result in bead:
        if result.winner is not Outcome.TIE:
            seen += 1
        elif wins:
            ties[max(seen - 1, 0)] += 1
    lengths = runs(r.winner for r in wins)
    cells = place_columns(lengths)
    big_road: list[tuple[BigRoadEntry, ...]] = []
    index = 0
    for column in cells:
        entries = []
        for cell in column:
            entries.append(BigRoadEntry(wins[index], ties[index], cell))
            index += 1
        big_road.append(tuple(entries))

    derived = []
    for name, offset in DERIVED:
        marks: list[Colour] = []
        growing: list[int] = []
        for length in lengths:
            growing.append(0)
            for _ in range(length):
                growing[-1] += 1
                mark = derived_mark(growing, offset)
                if mark is not None:
                    marks.append(mark)
        placed = place_columns(runs(marks))
        flat = tuple(cell for column in placed for cell in column)
        derived.append(DerivedRoad(name, tuple(marks), flat))

    ask = {
        outcome: ask_next(lengths, wins, outcome) for outcome in (Outcome.BANKER, Outcome.PLAYER)
    }
    return Roads(bead, tuple(big_road), tuple(derived), ask)


def ask_next(
    lengths: Sequence[int], wins: Sequence[RoadResult], outcome: Outcome
) -> dict[str, Colour | None]:
    """The colour each derived road would add if the next result were ``outcome``."""
    if not wins:
        after: list[int] = [1]
    elif wins[-1].winner is outcome:
        after = [*lengths[:-1], lengths[-1] + 1]
    else:
        after = [*lengths, 1]
    return {name: derived_mark(after, offset) for name, offset in DERIVED}


@dataclass(frozen=True, slots=True)
class RoadStats:
    """Counts of a sequence of results and its longest runs.

    Banker and Player streaks ignore ties (a tie does not break a big road column); the
    tie streak counts ties in a row.
    """

    rounds: int
    banker: int
    player: int
    tie: int
    player_pairs: int
    banker_pairs: int
    naturals: int
    longest_banker: int
    longest_player: int
    longest_tie: int

    def to_json(self) -> dict[str, Any]:
        def share(count: int) -> float:
            return round(count / self.rounds, 4) if self.rounds else 0.0

        return {
            "rounds": self.rounds,
            "counts": {"banker": self.banker, "player": self.player, "tie": self.tie},
            "shares": {
                "banker": share(self.banker),
                "player": share(self.player),
                "tie": share(self.tie),
            },
            "player_pairs": self.player_pairs,
            "banker_pairs": self.banker_pairs,
            "naturals": self.naturals,
            "longest_streak": {
                "banker": self.longest_banker,
                "player": self.longest_player,
                "tie": self.longest_tie,
            },
        }


def road_stats(results: Sequence[RoadResult]) -> RoadStats:
    """Counts, pairs, naturals and longest streaks of ``results``.

    >>> road_stats(RoadResult.parse_many("BTBPTT")).longest_banker
    2
    """

    def longest(outcome: Outcome, skip_ties: bool) -> int:
        items = [r.winner for r in results if not (skip_ties and r.winner is Outcome.TIE)]
        best = run = 0
        for winner in items:
            run = run + 1 if winner is outcome else 0
            best = max(best, run)
        return best

    def count(outcome: Outcome) -> int:
        return sum(r.winner is outcome for r in results)

    return RoadStats(
        rounds=len(results),
        banker=count(Outcome.BANKER),
        player=count(Outcome.PLAYER),
        tie=count(Outcome.TIE),
        player_pairs=sum(r.player_pair for r in results),
        banker_pairs=sum(r.banker_pair for r in results),
        naturals=sum(r.natural for r in results),
        longest_banker=longest(Outcome.BANKER, skip_ties=True),
        longest_player=longest(Outcome.PLAYER, skip_ties=True),
        longest_tie=longest(Outcome.TIE, skip_ties=False),
    )
