"""``baccarat rules``, ``odds`` and ``deal``: the rules engine and the exact analyser."""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from baccarat.cli.output import percent, print_json, table
from baccarat.core import PUSH, RuleSet

if TYPE_CHECKING:
    from baccarat.analysis.eor import RemovalEffect
    from baccarat.analysis.multiplier import MultiplierAnalysis
    from baccarat.core import MultiplierTerms


def register(subparsers: Any) -> None:
    rules = subparsers.add_parser("rules", help="list the rule set presets")
    rules.add_argument("--json", action="store_true", help="machine-readable output")
    rules.set_defaults(handler=run_rules)

    odds = subparsers.add_parser("odds", help="exact probabilities, house edge and RTP")
    source = odds.add_mutually_exclusive_group()
    source.add_argument("--rules", help="rule set preset (default: classic-8deck)")
    source.add_argument("--decks", type=int, help="a fresh shoe of N decks, tie 8:1")
    odds.add_argument("--remove", default="", help='cards gone from the shoe, e.g. "Ah Td 9s"')
    odds.add_argument(
        "--eor", action="store_true", help="effect of removal of each rank on each house edge"
    )
    odds.add_argument("--json", action="store_true", help="machine-readable output")
    odds.set_defaults(handler=run_odds)

    deal = subparsers.add_parser("deal", help="deal from a stacked shoe in the given order")
    deal.add_argument("--cards", required=True, help='the shoe, top card first: "4h Kd 8s ..."')
    deal.add_argument("--rules", default="classic-8deck", help="rule set preset")
    deal.add_argument("--all", action="store_true", help="deal coups until the cards run short")
    deal.add_argument("--json", action="store_true", help="machine-readable output")
    deal.set_defaults(handler=run_deal)


def ratio_text(pay: Fraction) -> str:
    """A pay "to one" as casinos write it: 11:1, 19:20, 3:2, 0.54:1."""
    if pay.denominator == 1 or pay.denominator > 20:
        return f"{float(pay):g}:1"
    return f"{pay.numerator}:{pay.denominator}"


def pays_text(rules: RuleSet, bet: str) -> str:
    """The headline pay of a bet: "11:1", "25:1 / 200:1", "table" for a pay table by margin;
    the banker's exceptions in no-commission games."""
    table = rules.paytable(bet)
    if bet == "banker":
        text = ratio_text(table.pay("win") or Fraction(0))
        with_6 = table.pay("win_with_6")
        if with_6 != table.pay("win"):
            text += f", 6 pays {ratio_text(with_6 or Fraction(0))}"
        if table.pay("win_three_card_7") is PUSH:
            text += ", 3-card 7 pushes"
        return text
    pays = list(dict.fromkeys(pay for _, pay in table.pays if pay is not PUSH))
    if len(pays) > 2:
        return "table"
    return " / ".join(ratio_text(pay) for pay in pays)


def terms_text(terms: MultiplierTerms) -> str:
    """A multiplier game's published terms in a sentence."""
    counts = ", ".join(f"{k} ({p})" for k, p in terms.counts)
    values = ", ".join(f"{v}x ({p})" for v, p in terms.values)
    return (
        f"K a coup, K = {counts}, distinct cards of the 52 drawn uniformly; each card's "
        f"multiplier {values}, drawn independently; a fee of {terms.fee} of each stake, "
        "never returned"
    )


MULTIPLIER_HEADER = ("bet", "pays", "RTP", "house edge", "SD", "largest", "1 in", "100x+ 1 in")
MULTIPLIER_NOTE = (
    "exact for a fresh full shoe, the pays before rounding: RTP per unit wagered (stake and "
    "fee); SD of a round's result per unit staked; largest: the largest multiplier of a win "
    "and how rarely a round wins with it; 100x+: how rarely a round wins 100 times the "
    "stake or more"
)


def multiplier_rows(analysis: MultiplierAnalysis) -> list[tuple[str, ...]]:
    """Each bet's exact figures as text, in ``MULTIPLIER_HEADER``'s columns."""
    from baccarat.analysis.multiplier import one_in

    return [
        (
            name,
            pays_text(analysis.rules, name) + " x M",
            percent(float(bet.rtp)),
            percent(float(bet.house_edge)),
            f"{bet.sd:.4f}",
            f"{bet.max_multiplier:,}x",
            f"{one_in(bet.max_chance):,}",
            f"{one_in(bet.chance_100x):,}",
        )
        for name, bet in analysis.bets.items()
    ]


def run_rules(args: argparse.Namespace) -> int:
    from baccarat.core import PRESETS

    if args.json:
        print_json([preset.to_json() | {"aliases": list(preset.aliases)} for preset in PRESETS])
        return 0
    rows = [
        (
            p.name,
            p.decks,
            p.shuffle.value,
            "-" if p.penetration is None else percent(float(p.penetration), 1),
            "yes" if p.burn else "no",
            pays_text(p, "banker"),
            ratio_text(p.tie_pays),
            p.source,
        )
        for p in PRESETS
    ]
    header = ("name", "decks", "shuffle", "penetration", "burn", "banker", "tie", "source")
    print(table(header, rows))
    print("\nside bets (besides player, banker and tie):")
    width = max(len(p.name) for p in PRESETS)
    for p in PRESETS:
        print(f"{p.name:<{width}}  {' '.join(t.bet for t in p.side_bets) or '-'}")
    return 0


def run_odds(args: argparse.Namespace) -> int:
    from baccarat.analysis import analyse, shoe_faces
    from baccarat.analysis.eor import effect_of_removal, removal_json
    from baccarat.analysis.exact import OUTCOMES
    from baccarat.core import Card, get_rules, rules_for_decks

    rules = (
        rules_for_decks(args.decks)
        if args.decks is not None
        else get_rules(args.rules or "classic-8deck")
    )
    if rules.multipliers is not None:
        return _multiplier_odds(args, rules)
    removed = Card.parse_many(args.remove)
    faces = shoe_faces(rules.decks, removed)
    analysis = analyse(rules, faces)
    effects = effect_of_removal(rules, faces) if args.eor else None
    if args.json:
        data = analysis.to_json()
        if effects is not None:
            data["eor"] = removal_json(effects)
        print_json(data)
        return 0
    print(f"rules: {rules.name} ({rules.description})")
    if removed:
        print(f"removed: {len(removed)} cards, {sum(analysis.composition)} remain")
    print(f"ordered six-card sequences: {analysis.counts.total:,}\n")
    outcome_rows = [
        (o.value, f"{analysis.counts.count(o):,}", f"{float(analysis.probability(o)):.6f}")
        for o in OUTCOMES
    ]
    print(table(("outcome", "count", "probability"), outcome_rows) + "\n")
    bet_rows = [
        (k, pays_text(rules, k), percent(float(b.house_edge)), percent(float(b.rtp)))
        for k, b in analysis.bets.items()
    ]
    print(table(("bet", "pays", "house edge", "RTP"), bet_rows))
    if effects is not None:
        print(eor_table(effects))
    return 0


def _multiplier_odds(args: argparse.Namespace, rules: RuleSet) -> int:
    from baccarat.analysis.multiplier import exact

    if args.remove.strip() or args.eor:
        raise ValueError(
            f"{rules.name} is analysed for a full shoe only: --remove and --eor do not apply"
        )
    analysis = exact(rules)
    if args.json:
        print_json({"rules": rules.name, "decks": rules.decks} | analysis.to_json())
        return 0
    print(f"rules: {rules.name} ({rules.description})")
    print(f"multiplier cards: {terms_text(analysis.terms)}\n")
    print(table(MULTIPLIER_HEADER, multiplier_rows(analysis)))
    print(f"\n{MULTIPLIER_NOTE}\n\nexact RTP:")
    for name, bet in analysis.bets.items():
        print(f"  {name}: {bet.rtp}")
    return 0


def _points(change: Fraction) -> str:
    return "0" if change == 0 else f"{float(change) * 100:+.4f}"


def eor_table(effects: tuple[RemovalEffect, ...]) -> str:
    """Bets down, ranks across; ranks with the same effects share a column (T J Q K)."""
    columns: list[tuple[str, dict[str, Fraction] | None]] = []
    for effect in effects:
        if columns and columns[-1][1] == effect.change and effect.change is not None:
            columns[-1] = (f"{columns[-1][0]} {effect.label}", effect.change)
        else:
            columns.append((effect.label, effect.change))
    bets = next((list(c) for _, c in columns if c is not None), [])
    rows = [(bet, *("-" if c is None else _points(c[bet]) for _, c in columns)) for bet in bets]
    return (
        "\neffect of removal: change in house edge, in percentage points, when one card of "
        "the rank leaves\n" + table(("bet", *(label for label, _ in columns)), rows)
    )


def run_deal(args: argparse.Namespace) -> int:
    from baccarat.core import Card, Shoe, deal_coup, get_rules

    get_rules(args.rules)  # an unknown rule set is an error even though a stack sets the deal
    cards = Card.parse_many(args.cards)
    if len(cards) < 4:
        raise ValueError(f"too few cards: a coup needs at least 4, got {len(cards)}")
    shoe = Shoe.stacked(cards)
    coups = [deal_coup(shoe)]
    # With --all, deal on while a next coup cannot run out of cards (it may need six).
    while args.all and shoe.remaining >= 6:
        coups.append(deal_coup(shoe))
    if args.json:
        print_json([c.to_json() for c in coups] if args.all else coups[0].to_json())
        return 0
    for number, coup in enumerate(coups, 1):
        player, banker = coup.player, coup.banker
        print(
            f"#{number:<3} player {' '.join(map(str, player.cards)):<9} {player.score_text}"
            f"   banker {' '.join(map(str, banker.cards)):<9} {banker.score_text}"
            f"   {coup.winner.value}{' (natural)' if coup.natural else ''}"
        )
    if args.all and shoe.remaining:
        print(f"{shoe.remaining} cards left undealt")
    return 0
