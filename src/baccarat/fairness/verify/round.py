"""The checks of one round on its own: the commitment of its revealed seed, a seat's client
seed, where its coup starts in the shoe, its cards, scores and winner (re-dealt from the
derived order, or against the tableau while the seed is not revealed), a multiplier
table's multiplier cards (re-derived, each changed one named), and its money (every bet
re-settled, with its fee and multiplier at a multiplier table, the win, the balance after);
``verify_round`` gives its ``RoundReport``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace

from ...core import (
    BetError,
    Bets,
    Card,
    Coup,
    Hand,
    Lightning,
    Outcome,
    Settlement,
    ShoeEmpty,
    ShufflePolicy,
    banker_draws,
    burn_count,
    fee_of,
    hand_score,
    is_natural,
    play_coup,
    player_draws,
    settle,
)
from ..derive import commitment, lightning, shuffled_order
from ..history import HandRecord, RoundRecord, seat_client_seed
from .report import (
    UNREVEALED,
    VOID_AFTER,
    VOID_AFTER_WIN,
    VOID_BEFORE,
    Difference,
    RoundReport,
    Status,
)


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def derived_order(record: RoundRecord) -> tuple[Card, ...] | None:
    """The round's shoe order after the cut, or None while the seed is not revealed."""
    fair = record.fairness
    if fair.server_seed is None:
        return None
    return _order(fair.server_seed, fair.client_seed, fair.nonce, record.rules.decks, fair.cut)


# The rounds of one cut shoe share its order: derive it once.
_order = functools.lru_cache(maxsize=32)(shuffled_order)


def _check_commitment(record: RoundRecord) -> list[Difference]:
    fair = record.fairness
    if fair.server_seed is None:
        return []
    expected = commitment(fair.server_seed)
    if expected == fair.commitment:
        return []
    note = "sha256 of the revealed server seed is not the commitment shown before play"
    return [Difference("fairness.commitment", expected, fair.commitment, note)]


def _check_position(record: RoundRecord, order: tuple[Card, ...] | None) -> list[Difference]:
    rules, fair = record.rules, record.fairness
    diffs = []
    if rules.shuffle is ShufflePolicy.FRESH:
        if fair.cut is not None:
            note = "a fresh-shuffle table has no cut"
            diffs.append(Difference("fairness.cut", None, fair.cut, note))
        if fair.position != 0:
            note = "a fresh-shuffle round deals from the top of its own shuffle"
            diffs.append(Difference("fairness.position", 0, fair.position, note))
        return diffs
    cut_card = rules.cut_card_position
    assert cut_card is not None
    if fair.position >= cut_card:
        note = f"the cut card lies before card {cut_card}: no coup starts after it"
        diffs.append(Difference("fairness.position", f"below {cut_card}", fair.position, note))
    if rules.burn:
        if order is not None:
            burned = 1 + burn_count(order[0])
            note = f"the turned first card {order[0]} and {burned - 1} more are burned"
        else:
            burned = 2
            note = "a burn takes the turned first card and at least one more"
        if fair.position < burned:
            diffs.append(Difference("fairness.position", f"at least {burned}", fair.position, note))
    return diffs


def _check_client_seeds(record: RoundRecord) -> list[Difference]:
    """A seat's client seed is its two participants', the banker's first."""
    fair = record.fairness
    if fair.client_seeds is None:
        return []
    expected = seat_client_seed(*fair.client_seeds)
    if expected == fair.client_seed:
        return []
    note = "a seat's client seed is the banker's and the player's, in that order"
    return [Difference("fairness.client_seed", expected, fair.client_seed, note)]


def _tableau_check(player: HandRecord, banker: HandRecord) -> list[Difference]:
    """Whether the recorded hands drew the third cards the tableau prescribes."""
    p = hand_score([c.value for c in player.cards[:2]])
    b = hand_score([c.value for c in banker.cards[:2]])
    recorded_p, recorded_b = _cards(player.cards), _cards(banker.cards)
    if is_natural(p) or is_natural(b):
        diffs = []
        for name, cards in (("player", recorded_p), ("banker", recorded_b)):
            if len(cards) != 2:
                note = f"a natural ({p} against {b}): both hands stand on two cards"
                diffs.append(Difference(f"{name}.cards", "2 cards", cards, note))
        return diffs
    if player_draws(p) != (len(player.cards) == 3):
        rule = "draws on 0-5" if player_draws(p) else "stands on 6-7"
        note = f"the player {rule}; two-card score {p}"
        expected = "3 cards" if player_draws(p) else "2 cards"
        return [Difference("player.cards", expected, recorded_p, note)]
    third = player.cards[2].value if len(player.cards) == 3 else None
    draws = banker_draws(b, third)
    if draws != (len(banker.cards) == 3):
        after = "the player stood" if third is None else f"the player's third card is {third}"
        note = f"banker {b} {'draws' if draws else 'stands'} when {after}"
        return [Difference("banker.cards", "3 cards" if draws else "2 cards", recorded_b, note)]
    return []


def _check_coup(
    record: RoundRecord, order: tuple[Card, ...] | None
) -> tuple[list[Difference], Coup | None]:
    """Cards, scores and winner; returns the differences and the coup to settle with."""
    rules, fair = record.rules, record.fairness
    player, banker = record.player, record.banker
    diffs: list[Difference] = []
    truth: Coup | None = None
    if order is not None:
        # On a fresh-shuffle table the coup is dealt from the top whatever the export says.
        start = 0 if rules.shuffle is ShufflePolicy.FRESH else fair.position
        try:
            truth = play_coup(order[start:])
        except ShoeEmpty:
            note = "too few cards left in the shoe for a coup"
            diffs.append(Difference("fairness.position", "a coup's cards", fair.position, note))
    complete = True
    if truth is not None:
        for name, hand, expected in (
            ("player", player, truth.player),
            ("banker", banker, truth.banker),
        ):
            # A voided round may hold only the cards dealt before the malfunction.
            prefix = expected.cards[: len(hand.cards)] if record.is_void else expected.cards
            if hand.cards != prefix:
                diffs.append(Difference(f"{name}.cards", _cards(prefix), _cards(hand.cards)))
            if hand.cards != expected.cards:
                complete = False
            expected_scores = list(Hand(prefix).scores)
            if list(hand.scores) != expected_scores:
                diffs.append(Difference(f"{name}.scores", expected_scores, list(hand.scores)))
        # A voided coup that was not completed has no winner.
        settled: Coup | None = truth if complete or not record.is_void else None
    else:
        has_two_each = len(player.cards) >= 2 and len(banker.cards) >= 2
        # Without the seed, a voided round counts as dealt out when it names a winner.
        complete = not record.is_void or (has_two_each and record.winner is not None)
        if complete:
            diffs += _tableau_check(player, banker)
        for name, hand in (("player", player), ("banker", banker)):
            expected_scores = list(Hand(hand.cards).scores)
            if list(hand.scores) != expected_scores:
                note = "the scores of the recorded cards"
                diffs.append(Difference(f"{name}.scores", expected_scores, list(hand.scores), note))
        settled = Coup(Hand(player.cards), Hand(banker.cards)) if complete else None
    winner = None if settled is None else settled.winner
    # A voided round may leave the winner null; otherwise it must be the coup's.
    if record.winner is not winner and not (record.is_void and record.winner is None):
        note = "" if winner is not None else "the coup was not completed before the void"
        diffs.append(
            Difference(
                "winner",
                None if winner is None else winner.value,
                None if record.winner is None else record.winner.value,
                note,
            )
        )
    return diffs, settled


def derived_lightning(record: RoundRecord) -> tuple[Lightning, ...] | None:
    """A multiplier table's round's multiplier cards from its seeds, nonce and position; ()
    at other tables; None while the seed is not revealed."""
    terms, fair = record.rules.multipliers, record.fairness
    if terms is None:
        return ()
    if fair.server_seed is None:
        return None
    return lightning(fair.server_seed, fair.client_seed, fair.nonce, terms, fair.position)


def _shown(one: Lightning | None) -> str | None:
    return None if one is None else str(one)


def _check_lightning(record: RoundRecord) -> tuple[list[Difference], tuple[Lightning, ...]]:
    """The multiplier cards, each changed, added or missing one named; returns the
    differences and the cards to settle with (the derived ones, or the recorded ones while
    the seed is not revealed)."""
    recorded = record.lightning
    terms = record.rules.multipliers
    expected = derived_lightning(record)
    if terms is None:
        if not recorded:
            return [], ()
        note = f"{record.rules_name} has no multiplier cards"
        return [Difference("lightning", [], [str(one) for one in recorded], note)], ()
    if expected is None:
        # Not revealed yet: what the published terms allow.
        counts, values = dict(terms.counts), dict(terms.values)
        diffs = []
        if len(recorded) not in counts:
            note = f"a coup has {', '.join(map(str, counts))} multiplier cards"
            diffs.append(Difference("lightning", "a count the terms give", len(recorded), note))
        for i, one in enumerate(recorded):
            if one.multiplier not in values:
                note = f"the multipliers are {', '.join(map(str, values))}"
                diffs.append(Difference(f"lightning.{i}", "a published multiplier", str(one), note))
        return diffs, recorded
    diffs = []
    for i in range(max(len(expected), len(recorded))):
        want = expected[i] if i < len(expected) else None
        got = recorded[i] if i < len(recorded) else None
        if want == got:
            continue
        if want is not None and got is not None and want.card == got.card:
            note = f"the multiplier of {want.card}"
        elif want is None or got is None:
            note = "a multiplier card " + ("too many" if want is None else "missing")
        else:
            note = "the multiplier card"
        diffs.append(Difference(f"lightning.{i}", _shown(want), _shown(got), note))
    return diffs, expected


def _check_fees(record: RoundRecord) -> list[Difference]:
    """Each bet's fee: 1/5 of its stake at a multiplier table, none elsewhere."""
    diffs = []
    for bet in record.bets:
        try:
            fee = fee_of(record.rules, bet.stake)
        except BetError as error:
            diffs.append(Difference(f"bets.{bet.bet}.stake", "a whole fee", bet.stake, str(error)))
            continue
        if bet.fee != fee:
            terms = record.rules.multipliers
            note = "no fee here" if terms is None else f"{terms.fee} of the stake {bet.stake}"
            diffs.append(Difference(f"bets.{bet.bet}.fee", fee, bet.fee, note))
    return diffs


def _fees(record: RoundRecord) -> int:
    """The fees the rules take with the round's stakes (a stake whose fee is not whole,
    named by the fee check, counts with its recorded fee)."""
    total = 0
    for bet in record.bets:
        try:
            total += fee_of(record.rules, bet.stake)
        except BetError:
            total += bet.fee
    return total


def _check_money(
    record: RoundRecord, coup: Coup | None, cards: tuple[Lightning, ...] = ()
) -> list[Difference]:
    diffs = _check_fees(record)
    if record.is_void:
        note = "a voided round returns every stake"
        for bet in record.bets:
            name = f"bets.{bet.bet}"
            if bet.result != "void":
                diffs.append(Difference(f"{name}.result", "void", bet.result, note))
            if bet.returned != bet.stake:
                diffs.append(Difference(f"{name}.returned", bet.stake, bet.returned, note))
        expected_win = record.staked
    else:
        assert coup is not None
        winner = coup.winner
        settlement = _settle(record, coup, cards)
        for bet, settled in zip(record.bets, settlement.bets, strict=True):
            name = f"bets.{bet.bet}"
            if bet.result != settled.result.value:
                diffs.append(Difference(f"{name}.result", settled.result.value, bet.result))
            if bet.multiplier != settled.multiplier:
                note = "the product of its paid cards' multipliers"
                diffs.append(
                    Difference(f"{name}.multiplier", settled.multiplier, bet.multiplier, note)
                )
            if bet.returned != settled.returned:
                outcome = "a tie" if winner is Outcome.TIE else f"a {winner.value} win"
                note = f"{bet.bet} bet of {bet.stake} on {outcome}"
                diffs.append(Difference(f"{name}.returned", settled.returned, bet.returned, note))
        expected_win = settlement.returned
    if record.win != expected_win:
        note = "the sum of what the bets return"
        diffs.append(Difference("win", expected_win, record.win, note))
    expected_after = record.balance_before - record.staked + expected_win
    note = f"balance_before {record.balance_before} - stakes {record.staked} + win {expected_win}"
    fees = _fees(record)
    if fees and not record.is_void:
        # A multiplier table's fees, taken with the stakes (a void returns them too).
        expected_after -= fees
        note = (
            f"balance_before {record.balance_before} - stakes {record.staked} - fees "
            f"{fees} + win {expected_win}"
        )
    if record.role == "banker":
        # The banker's side of a player-banked round: the stakes in, the returns and the
        # casino's fee out (a void gives everything back).
        fee = 0 if record.is_void else record.fee
        expected_after = record.balance_before + record.staked - expected_win - fee
        note = (
            f"the banker's balance_before {record.balance_before} + stakes {record.staked} "
            f"- win {expected_win} - fee {fee}"
        )
    if record.balance_after != expected_after:
        diffs.append(Difference("balance_after", expected_after, record.balance_after, note))
    return diffs


def _settle(record: RoundRecord, coup: Coup, cards: tuple[Lightning, ...]) -> Settlement:
    """The round's bets settled against its coup (and its multiplier cards)."""
    bets = Bets({bet.bet: bet.stake for bet in record.bets})
    try:
        return settle(record.rules, bets, coup, cards)
    except BetError:
        # A stake whose fee is not whole (named by the fee check): settled as if fee-less.
        return settle(replace(record.rules, multipliers=None), bets, coup)


def check_round(record: RoundRecord) -> list[Difference]:
    """Every difference found in one round on its own (no cross-round checks)."""
    return _check_round(record)[0]


def _check_round(
    record: RoundRecord,
) -> tuple[list[Difference], tuple[Coup, tuple[Lightning, ...]] | None]:
    order = derived_order(record)
    diffs = _check_commitment(record)
    diffs += _check_client_seeds(record)
    diffs += _check_position(record, order)
    coup_diffs, coup = _check_coup(record, order)
    diffs += coup_diffs
    lightning_diffs, cards = _check_lightning(record)
    diffs += lightning_diffs
    diffs += _check_money(record, coup, cards)
    return diffs, None if coup is None else (coup, cards)


def _void_kind(record: RoundRecord, dealt: tuple[Coup, tuple[Lightning, ...]] | None) -> str:
    """Whether a voided round was voided before its result, after it, or after a win of the
    exporter's side (the player's bets returning more than staked and their fees; the
    banker's side, the stakes covering the returns and the fee)."""
    if dealt is None:
        return VOID_BEFORE
    settlement = _settle(record, *dealt)
    net = settlement.net
    if record.role == "banker":
        net = -net - record.fee
    return VOID_AFTER_WIN if net > 0 else VOID_AFTER


def _report(
    record: RoundRecord,
    diffs: Sequence[Difference],
    dealt: tuple[Coup, tuple[Lightning, ...]] | None,
) -> RoundReport:
    if diffs:
        return RoundReport(record.line, record.id, Status.DIFFERS, tuple(diffs))
    if record.is_void:
        return RoundReport(record.line, record.id, Status.VOIDED, reason=_void_kind(record, dealt))
    if not record.fairness.is_revealed:
        return RoundReport(record.line, record.id, Status.UNVERIFIABLE, reason=UNREVEALED)
    return RoundReport(record.line, record.id, Status.VERIFIED)


def verify_round(record: RoundRecord) -> RoundReport:
    """The verdict on one round on its own."""
    diffs, dealt = _check_round(record)
    return _report(record, diffs, dealt)
