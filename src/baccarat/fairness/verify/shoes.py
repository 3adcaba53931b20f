"""The checks of the shoes across rounds: a fresh shuffle's nonce is never used twice, and a
cut shoe is one shuffle that starts where its burn ends and runs from coup to coup without a
gap or an overlap (``check_shuffles``); a shared table's shoe is checked against its
hash-chained log, its beacon round and its revealed seed (``check_table_logs``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from ...core import ShufflePolicy, burn_count
from ..beacon import KNOWN_CHAINS, check_log, randomness, shoe_client_seed, verify_signature
from ..history import RoundRecord
from .report import Difference, Finding, Kind
from .round import derived_order


def _shoe_start(record: RoundRecord) -> int | None:
    """Where the first coup of a cut shoe starts: right after its burn (None: unknown while
    the seed is not revealed)."""
    if not record.rules.burn:
        return 0
    order = derived_order(record)
    return None if order is None else 1 + burn_count(order[0])


def check_shuffles(records: Sequence[RoundRecord]) -> dict[int, list[Difference]]:
    """Cross-round checks of the shuffles, keyed by index into ``records``.

    Under one server seed every shuffle has its own nonce: a fresh-shuffle round never
    shares its nonce; the rounds of one cut shoe share it, with the same client seed, cut
    and rules; its first coup starts where the burn ends, and each next coup where the one
    before ended (the export is oldest first): a coup skipped, or cards dealt to no coup,
    leave a gap; coups that share cards overlap.
    """
    groups: dict[tuple[str, int], list[int]] = {}
    for index, record in enumerate(records):
        key = (record.fairness.commitment, record.fairness.nonce)
        groups.setdefault(key, []).append(index)
    found: dict[int, list[Difference]] = {}
    for (_, nonce), indices in groups.items():
        first = records[indices[0]]
        if any(records[i].rules.shuffle is ShufflePolicy.FRESH for i in indices):
            expected = "a nonce not used before under this server seed"
            note = f"the shuffle with nonce {nonce} was already used on line {first.line}"
            for i in indices[1:]:
                found.setdefault(i, []).append(Difference("fairness.nonce", expected, nonce, note))
            continue
        if any(records[i].shared for i in indices):
            # A shared table's shoe is dealt to every bettor: a player's rounds are the
            # coups they bet on, and the shoe's own record shows it whole (contiguous).
            continue
        start = _shoe_start(first)
        if start is not None and first.fairness.position != start:
            note = (
                f"the first coup of the shoe (nonce {nonce}) starts where its burn ends"
                if start
                else f"the first coup of the shoe (nonce {nonce}) starts at its first card"
            )
            found.setdefault(indices[0], []).append(
                Difference("fairness.position", start, first.fairness.position, note)
            )
        previous = first
        for i in indices[1:]:
            record = records[i]
            diffs = found.setdefault(i, [])
            note = f"one shoe (nonce {nonce}) is one shuffle, as on line {first.line}"
            for name, want, got in (
                ("rules", first.rules.name, record.rules.name),
                ("fairness.client_seed", first.fairness.client_seed, record.fairness.client_seed),
                ("fairness.cut", first.fairness.cut, record.fairness.cut),
            ):
                if want != got:
                    diffs.append(Difference(name, want, got, note))
            begin = previous.fairness.position
            end = begin + previous.cards_used
            position = record.fairness.position
            if position < end:
                note = f"overlaps the coup on line {previous.line}, cards {begin}-{end - 1}"
                diffs.append(Difference("fairness.position", end, position, note))
            elif position > end:
                skipped = f"card {end}" if position == end + 1 else f"cards {end}-{position - 1}"
                note = f"{skipped} after the coup on line {previous.line} went to no coup"
                diffs.append(Difference("fairness.position", end, position, note))
            previous = record
    return found


def _log_differences(record: RoundRecord) -> tuple[list[Difference], str | None]:
    """A shared shoe's log (``table_log``) against the line: the chain of its entries, the
    commitment, the beacon round (named before it was published, signed by its chain,
    its randomness in the client seed) and the revealed seed; and a note on what it
    guarantees."""
    entries = record.table_log or ()
    fair = record.fairness
    diffs = [Difference("table_log", "a hash-chained log", "broken", p) for p in check_log(entries)]
    by_type = {str(e.get("type")): e for e in entries}
    commit = by_type.get("commit")
    if commit is None:
        return [*diffs, Difference("table_log", "the shoe's commit entry", None)], None
    if commit.get("commitment") != fair.commitment:
        diffs.append(
            Difference(
                "table_log.commit.commitment",
                fair.commitment,
                commit.get("commitment"),
                "the log committed another seed",
            )
        )
    base = str(commit.get("client_seed"))
    named = commit.get("beacon")
    shoe = f"shoe {commit.get('number')} of table {commit.get('table')}"
    note = None
    if not isinstance(named, dict):
        expected = base
        note = (
            f"{shoe} was dealt from the committed seed alone (no beacon): its order was "
            "fixed before any bet, but the operator made the seed"
        )
    else:
        entered = by_type.get("beacon")
        if entered is None:
            missing = f"beacon round {named.get('round')}"
            note = "the shoe was dealt without its beacon round"
            return [*diffs, Difference("table_log", missing, None, note)], None
        signature = str(entered.get("signature"))
        value = randomness(signature) if re.fullmatch(r"(?:[0-9a-f]{2})+", signature) else None
        expected = shoe_client_seed(base, value)
        for name, want, got in (
            ("round", named.get("round"), entered.get("round")),
            ("chain", named.get("chain"), entered.get("chain")),
            ("randomness", value, entered.get("randomness")),
        ):
            if want != got:
                diffs.append(Difference(f"table_log.beacon.{name}", want, got))
        known = KNOWN_CHAINS.get(str(named.get("chain")))
        key = known.public_key if known else str(named.get("public_key"))
        if known and named.get("public_key") != known.public_key:
            diffs.append(
                Difference(
                    "table_log.commit.beacon.public_key",
                    known.public_key,
                    named.get("public_key"),
                    "not the chain's public key",
                )
            )
        number = named.get("round")  # a whole number (a bool is none)
        if not (type(number) is int and verify_signature(key, number, signature)):
            diffs.append(
                Difference(
                    "table_log.beacon.signature",
                    f"the chain's signature of round {named.get('round')}",
                    signature,
                )
            )
        # Both whole numbers (a bool is none), the naming first; anything else (a time
        # missing, text) proves nothing: a difference, as much as a naming too late.
        named_us, published_us = commit.get("time_us"), named.get("published_us")
        if not (type(named_us) is int and type(published_us) is int and named_us < published_us):
            diffs.append(
                Difference(
                    "table_log.commit.time_us",
                    f"before {named.get('published_us')}",
                    commit.get("time_us"),
                    "the round was named after it was published",
                )
            )
        if not known:
            note = (
                f"{shoe} took round {named.get('round')} of beacon chain "
                f"{named.get('chain')}, not a known public chain: its randomness is only "
                "as independent as whoever runs that beacon"
            )
    if fair.client_seed != expected:
        diffs.append(
            Difference(
                "fairness.client_seed",
                expected,
                fair.client_seed,
                "the shoe's client seed is the one its log makes",
            )
        )
    revealed = by_type.get("reveal")
    if (
        revealed is not None
        and fair.server_seed is not None
        and revealed.get("server_seed") != fair.server_seed
    ):
        diffs.append(
            Difference(
                "table_log.reveal.server_seed", fair.server_seed, revealed.get("server_seed")
            )
        )
    return diffs, note


def check_table_logs(
    records: Sequence[RoundRecord],
) -> tuple[dict[int, list[Difference]], list[Finding]]:
    """The shared shoes' logs (``_log_differences``), once per shoe, by index."""
    found: dict[int, list[Difference]] = {}
    notes: dict[str, tuple[str, list[int]]] = {}
    done: dict[str, tuple[list[Difference], str | None]] = {}
    for index, record in enumerate(records):
        if record.table_log is None:
            continue
        key = json.dumps(
            [
                record.fairness.commitment,
                record.fairness.client_seed,
                record.fairness.server_seed,
                list(record.table_log),
            ],
            sort_keys=True,
        )
        if key not in done:
            done[key] = _log_differences(record)
        diffs, note = done[key]
        if diffs:
            found[index] = list(diffs)
        if note is not None:
            notes.setdefault(note, (note, []))[1].append(record.line)
    return found, [Finding(Kind.TABLE_LOG, n, tuple(lines)) for n, lines in notes.values()]
