"""Verify an exported history: re-derive every shuffle, re-deal every coup, re-settle, and
check what lies between the rounds.

Pure functions over parsed records (``history.parse_history``), so the game server can run
the same checks on its own rounds. ``verify_history`` is the one pass that builds the
report; ``render`` is the one text renderer (``baccarat verify``); the browser's port in
``web/js/fair.js`` keeps the same names and reads the same vectors.

Per round (``check_round``), every comparison names the field, the value the rules and the
revealed seeds give (expected) and the value in the export (recorded). A round is
``verified`` when everything matches; ``voided`` when it was voided and its void is what a
void must be (said to be before the result, after the result, or after a win);
``unverifiable`` when its server seed is not revealed yet and nothing that can be checked
without it differs; and ``differs`` otherwise.

Across rounds (``check_export``): a seed revealed on any line of a commitment serves every
line of it; under one revealed commitment the player's own rounds (and the shoes they cut
and never dealt from) use the nonces 0 .. nonces_used-1, each once, without a gap; a cut
shoe starts where its burn ends and runs from coup to coup without a gap or an overlap;
and, per mode, each round starts with the balance the one before ended with. A gap is a
finding (the export fails); a break in the balance chain is a note with its amount
(money moves between rounds that the export does not hold: deposits, withdrawals, top-ups,
the void of an earlier round).

Given the casino's public keys (``check_signatures``), every line must carry a signature by
one of them that verifies; given the player's receipts (``check_receipts``), each of the
player's rounds must be dealt under a commitment shown before it was played.

The verdict (``Verdict``, the headline: the first line of ``render``) has three states.
Without the casino's keys the checks above cannot tell a real export from one doctored to be
consistent in itself (its last rounds removed and ``nonces_used`` lowered to match, or a
history made up afterwards with its commitment recomputed): an export in which nothing
differs is then ``signatures_not_checked``, not ``verified``, and the headline says so.

The modules: ``report`` (the verdicts and the report), ``round`` (one round on its own),
``seeds``, ``shoes``, ``balances``, ``signatures`` and ``receipts`` (the checks across
rounds), ``export`` (the one pass over an export) and ``text`` (``render``).
"""

from .balances import check_balances
from .export import check_export, verify_history
from .receipts import SEEN_SLACK_S, check_receipts
from .report import (
    NO_KEYS,
    UNREVEALED,
    VOID_AFTER,
    VOID_AFTER_WIN,
    VOID_BEFORE,
    Difference,
    Finding,
    HistoryReport,
    Kind,
    RoundReport,
    Status,
    Verdict,
    show,
)
from .round import check_round, derived_lightning, derived_order, verify_round
from .seeds import check_nonces, check_sources, revealed_seeds, with_revealed_seed
from .shoes import check_shuffles, check_table_logs
from .signatures import check_signatures
from .text import render

__all__ = [
    "NO_KEYS",
    "SEEN_SLACK_S",
    "UNREVEALED",
    "VOID_AFTER",
    "VOID_AFTER_WIN",
    "VOID_BEFORE",
    "Difference",
    "Finding",
    "HistoryReport",
    "Kind",
    "RoundReport",
    "Status",
    "Verdict",
    "check_balances",
    "check_export",
    "check_nonces",
    "check_receipts",
    "check_round",
    "check_shuffles",
    "check_signatures",
    "check_sources",
    "check_table_logs",
    "derived_lightning",
    "derived_order",
    "render",
    "revealed_seeds",
    "show",
    "verify_history",
    "verify_round",
    "with_revealed_seed",
]
