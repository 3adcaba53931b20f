"""``baccarat rules``, ``odds`` and ``deal``: the rules engine and the exact analyser."""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from .output import percent, print_json, table


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


def pays_text(pays: Fraction) -> str:
    return f"{pays.numerator}:{pays.denominator}"


def run_rules(args: argparse.Namespace) -> int:
    from ..core import PRESETS

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
            pays_text(p.banker_win_multiplier),
            pays_text(p.tie_pays),
            p.source,
        )
        for p in PRESETS
    ]
    header = ("name", "decks", "shuffle", "penetration", "burn", "banker", "tie", "source")
    print(table(header, rows))
    return 0


def run_odds(args: argparse.Namespace) -> int:
    from ..analysis import analyse, shoe_composition
    from ..analysis.eor import effect_of_removal, removal_json
    from ..analysis.exact import OUTCOMES
    from ..core import Card, get_rules, rules_for_decks

    rules = (
        rules_for_decks(args.decks)
        if args.decks is not None
        else get_rules(args.rules or "classic-8deck")
    )
    removed = Card.parse_many(args.remove)
    analysis = analyse(rules, shoe_composition(rules.decks, removed))
    effects = effect_of_removal(rules, analysis.composition) if args.eor else None
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
    pays = {
        "banker": rules.banker_win_multiplier,
        "player": rules.player_pays,
        "tie": rules.tie_pays,
    }
    bet_rows = [
        (k, pays_text(pays[k]), percent(float(b.house_edge)), percent(float(b.rtp)))
        for k, b in analysis.bets.items()
    ]
    print(table(("bet", "pays", "house edge", "RTP"), bet_rows))
    if effects is not None:
        print("\neffect of removal: change in house edge when one card of the rank leaves")
        eor_rows = [
            (
                "T J Q K" if e.value == 0 else e.label,
                *(
                    "-" if e.change is None else f"{float(e.change[k]) * 100:+.5f}%"
                    for k in ("banker", "player", "tie")
                ),
            )
            for e in effects
        ]
        print(table(("card", "banker", "player", "tie"), eor_rows))
    return 0


def run_deal(args: argparse.Namespace) -> int:
    from ..core import Card, Shoe, deal_coup, get_rules

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
