"""What the seeds say across rounds: the server seed revealed on one line of a commitment
serves every line of it; under a revealed commitment the exporter's own rounds and undealt
shoes use its nonces 0 .. nonces_used-1 without a gap, and a shared table's shoe, whose
seed is its own, its one shuffle (``check_nonces``); and the rounds whose client seed the
server set are named (``check_sources``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from ..derive import commitment
from ..history import RoundRecord, UndealtShoe
from .report import Difference, Finding, Kind


def _own(record: RoundRecord) -> bool:
    """A round dealt from the exporter's seeds: their own, or a seat's, whose seed is both
    participants' (a round banked before seats had seeds was dealt from the other player's,
    whose other nonces this export cannot hold)."""
    return record.role != "banker" or record.fairness.client_seeds is not None


def _one_shuffle(record: RoundRecord) -> list[Difference]:
    """A shared table's shoe is the one shuffle of its seed: nonce 0, and nobody cuts it."""
    fair = record.fairness
    note = "a shared table's shoe has a seed of its own, shuffled once (nonce 0, cut 0)"
    return [
        Difference(name, 0, value, note)
        for name, value in (("fairness.nonce", fair.nonce), ("fairness.cut", fair.cut))
        if value != 0
    ]


def revealed_seeds(records: Sequence[RoundRecord]) -> dict[str, tuple[str, int]]:
    """Per commitment, the server seed revealed on one of its lines (and that line): the
    first whose sha256 is the commitment."""
    seeds: dict[str, tuple[str, int]] = {}
    for record in records:
        fair = record.fairness
        if fair.server_seed is None or fair.commitment in seeds:
            continue
        if commitment(fair.server_seed) == fair.commitment:
            seeds[fair.commitment] = (fair.server_seed, record.line)
    return seeds


def with_revealed_seed(
    record: RoundRecord, seeds: dict[str, tuple[str, int]]
) -> tuple[RoundRecord, list[Difference]]:
    """The round with its commitment's revealed seed, and a difference if it showed another."""
    fair = record.fairness
    found = seeds.get(fair.commitment)
    if found is None:
        return record, []
    seed, line = found
    if fair.server_seed is None:
        return replace(record, fairness=replace(fair, server_seed=seed)), []
    if fair.server_seed == seed:
        return record, []
    note = f"the seed of this commitment, revealed on line {line}"
    return record, [Difference("fairness.server_seed", seed, fair.server_seed, note)]


def _missing(used: set[int], count: int) -> list[tuple[int, int]]:
    """The ranges [a, b] of 0 .. count-1 that are not in ``used`` (without listing them)."""
    gaps = []
    expected = 0
    for n in sorted(u for u in used if u < count):
        if n > expected:
            gaps.append((expected, n - 1))
        expected = n + 1
    if expected < count:
        gaps.append((expected, count - 1))
    return gaps


def _short(commit: str) -> str:
    return commit[:12]


@dataclass
class _Nonces:
    """What one commitment's own lines say about its nonces."""

    lines: list[int] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)  # into the records
    nonces: dict[int, int] = field(default_factory=dict)  # nonce -> first line
    counts: dict[int, int] = field(default_factory=dict)  # nonces_used -> first line
    undealt: dict[int, UndealtShoe] = field(default_factory=dict)
    revealed: bool = False


def check_nonces(
    records: Sequence[RoundRecord],
) -> tuple[dict[int, list[Difference]], list[Finding], list[Finding]]:
    """Per revealed commitment: the player's own rounds and undealt shoes use the nonces
    0 .. nonces_used-1 without a gap; a shared table's coups, the one shuffle of their
    shoe's seed. Returns differences by index, findings and notes."""
    commits: dict[str, _Nonces] = {}
    diffs: dict[int, list[Difference]] = {}
    for index, record in enumerate(records):
        if record.table_shoe:
            if shoe_diffs := _one_shuffle(record):
                diffs[index] = shoe_diffs
            continue
        if not _own(record):
            continue
        fair = record.fairness
        seen = commits.setdefault(fair.commitment, _Nonces())
        seen.lines.append(record.line)
        seen.indices.append(index)
        seen.nonces.setdefault(fair.nonce, record.line)
        seen.revealed |= fair.is_revealed
        if fair.nonces_used is not None:
            seen.counts.setdefault(fair.nonces_used, record.line)
        for shoe in fair.undealt_shoes or ():
            seen.undealt.setdefault(shoe.nonce, shoe)
    findings: list[Finding] = []
    notes: list[Finding] = []
    unrevealed = [c for c, seen in commits.items() if not seen.revealed]
    if unrevealed:
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"{len(unrevealed)} commitment(s) not revealed yet "
                f"({', '.join(_short(c) for c in unrevealed)}): their nonces are checked "
                "for gaps once the seed is revealed (rotate it, then export again)",
            )
        )
    legacy = [c for c, seen in commits.items() if seen.revealed and not seen.counts]
    if legacy:
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"{len(legacy)} revealed commitment(s) without nonces_used "
                f"({', '.join(_short(c) for c in legacy)}): an export written before it was "
                "recorded; skipped nonces and missing rounds could not be checked there",
            )
        )
    banked = {r.fairness.commitment for r in records if not _own(r)} - set(commits)
    if banked:
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"{len(banked)} commitment(s) of rounds you banked are the other players': "
                "their nonces are not checked here (the player's own export checks them)",
            )
        )
    for commit, seen in commits.items():
        if not seen.revealed or not seen.counts:
            continue
        if len(seen.counts) > 1:
            said = ", ".join(f"{n} on line {line}" for n, line in sorted(seen.counts.items()))
            findings.append(
                Finding(
                    Kind.NONCES_USED,
                    f"commitment {_short(commit)}: its lines disagree on nonces_used ({said})",
                    tuple(sorted(seen.counts.values())),
                    commit,
                )
            )
        count = min(seen.counts)
        for index in seen.indices:
            fair = records[index].fairness
            if fair.nonce >= count:
                note = f"the seed gave out {count} nonces (nonces_used, published at rotation)"
                diffs.setdefault(index, []).append(
                    Difference("fairness.nonce", f"below {count}", fair.nonce, note)
                )
        for nonce, shoe in sorted(seen.undealt.items()):
            where = f"at {shoe.table_id}" if shoe.table_id else "at a cut-shoe table"
            cut = "" if shoe.cut is None else f", cut at {shoe.cut}"
            if nonce in seen.nonces:
                findings.append(
                    Finding(
                        Kind.UNDEALT,
                        f"commitment {_short(commit)}: nonce {nonce} is said to be a shoe "
                        f"never dealt, but dealt the round on line {seen.nonces[nonce]}",
                        (seen.nonces[nonce],),
                        commit,
                    )
                )
            elif nonce >= count:
                findings.append(
                    Finding(
                        Kind.UNDEALT,
                        f"commitment {_short(commit)}: undealt shoe nonce {nonce} is beyond "
                        f"the {count} nonces the seed gave out",
                        commitment=commit,
                    )
                )
            else:
                notes.append(
                    Finding(
                        Kind.UNDEALT,
                        f"commitment {_short(commit)}: nonce {nonce} is a shoe you cut "
                        f"{where}{cut} and never dealt from",
                        commitment=commit,
                    )
                )
        gaps = _missing(set(seen.nonces) | set(seen.undealt), count)
        if gaps:
            missing = sum(b - a + 1 for a, b in gaps)
            listed = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in gaps[:20])
            more = "" if len(gaps) <= 20 else f" and {len(gaps) - 20} more ranges"
            findings.append(
                Finding(
                    Kind.NONCE_GAP,
                    f"commitment {_short(commit)}: {missing} of its {count} nonces dealt no "
                    f"round in this export and no shoe was cut with them: nonce(s) "
                    f"{listed}{more} (rounds removed from the export, or shuffles skipped)",
                    tuple(seen.lines[:1]),
                    commit,
                    missing,
                )
            )
    return diffs, findings, notes


def _ranges(numbers: Iterable[int]) -> str:
    """``3, 5-7, 9``."""
    parts: list[str] = []
    run: list[int] = []
    for n in sorted(numbers):
        if run and n == run[-1] + 1:
            run.append(n)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [n]
    if run:
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ", ".join(parts)


def check_sources(records: Sequence[RoundRecord]) -> list[Finding]:
    """The rounds whose client seed the server set (the player never set one after the
    commitment was shown): a note naming them, not a failure, since the cards are what the
    seeds give; but the server knew that client seed when it chose its seed, so these rounds
    do not show that it could not choose the seed for them."""
    lines = tuple(r.line for r in records if r.fairness.client_seed_source == "server")
    if not lines:
        return []
    return [
        Finding(
            Kind.SERVER_CLIENT_SEED,
            f"{len(lines)} round(s) dealt with a client seed the server set, not you (line(s) "
            f"{_ranges(lines)}): the server knew it when it committed its seed, so for these "
            "rounds the guarantee that it could not choose its seed does not hold (set your "
            "own client seed after every new commitment)",
            lines,
        )
    ]
