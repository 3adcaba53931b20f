"""Every rule set at a player-banked table settles every bet as its house table does for the
same cards (core's one settlement on the dealt cards): the banker's result is the negation
of the player's, less the casino's fee. Stacked shoes cover the rules where the variants
differ: a banker's three-card 7 (EZ Baccarat pushes a Banker bet), a banker's 6 (pays 1:2
without commission) and a tie."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import pytest

from baccarat.core import Bets, Card, get_rules, play_coup, settle
from baccarat.server import replay
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.banked.terms import fee_for
from baccarat.server.settings import DatabaseUrl
from baccarat.server.tables import TableConfigError

from .banked import SeatServer, serving
from .support import StackedShoes

pytestmark = pytest.mark.anyio
TABLES = Path(__file__).parent.parent / "data" / "banked_variants.toml"
VARIANTS = ("online-6deck-tie9", "single-deck", "classic-6deck", "online-8deck-tie8", "ez-8deck",
            "no-commission-8deck")  # fmt: skip
# Cards in deal order (player, banker, player, banker, then third cards).
SCENARIOS = {
    # Player K 5 (5) draws a K: 5; banker 3 K (3) draws a 4: the banker wins with 7 of 3 cards.
    "banker's three-card 7": "Kh 3s 5d Kc Ks 4h",
    # Player K 5 (5) draws a K: 5; banker 6 K (6) stands on the player's 0: wins with a 6.
    "banker's 6": "Kh 6s 5d Kc Ks",
    "tie": "8h 8s Kd Qc",
}
BETS = {"player": 500, "banker": 1_000, "tie": 200}


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> AsyncIterator[SeatServer]:
    async with serving(database_url, tmp_path, tables_file=TABLES) as running:
        yield running


def test_the_scenarios_are_what_they_say() -> None:
    coups = {name: play_coup(Card.parse_many(cards)) for name, cards in SCENARIOS.items()}
    seven, six, tie = coups.values()
    assert seven.winner.value == "banker" and seven.banker.score == 7
    assert len(seven.banker.cards) == 3
    assert six.winner.value == "banker" and six.banker.score == 6
    assert tie.winner.value == "tie"
    # Where the variants differ: EZ pushes the Banker bet on the 7, no-commission pays 1:2.
    bets = Bets(banker=1_000)
    assert settle(get_rules("ez-8deck"), bets, seven).returned == 1_000
    assert settle(get_rules("no-commission-8deck"), bets, six).returned == 1_500
    assert settle(get_rules("online-6deck-tie9"), bets, seven).returned == 1_950


async def test_every_rule_set_settles_alike_at_a_house_and_a_player_banked_table(
    server: SeatServer,
) -> None:
    player, banker, house = [await server.player(n) for n in ("punter", "dealer", "house")]
    for variant in VARIANTS:
        rules = get_rules(variant)
        seat = await banker.sit(f"banked-{variant}", "banker", auto_approve=True)
        await player.sit(f"banked-{variant}", "player")
        for scenario, cards in SCENARIOS.items():
            server.shoes.current = StackedShoes(cards)
            expected = settle(rules, Bets(BETS), play_coup(Card.parse_many(cards)))
            at_house = await house.call(
                "POST", f"/api/tables/house-{variant}/rounds", {"mode": "fun", "bets": BETS},
                **{"Idempotency-Key": f"{variant}-{len(scenario)}"},
            )  # fmt: skip
            assert at_house.status_code == 201, at_house.text
            banked = await player.deal_rest(seat, None, **BETS)
            assert banked.status_code == 201, banked.text
            mine, theirs = banked.json(), at_house.json()
            where = f"{variant}, {scenario}"
            assert mine["bets"] == theirs["bets"] == expected.to_json(), where
            assert mine["win"] == theirs["win"] == expected.returned, where
            fee = fee_for(sum(BETS.values()))
            assert mine["banked"]["fee"] == fee, where
            (seen,) = [r for r in await banker.history() if r["id"] == mine["id"]]
            assert seen["banked"]["net"] == -(expected.returned - sum(BETS.values())) - fee
            assert seen["balance_after"] - seen["balance_before"] == seen["banked"]["net"]
            # admin replay: the money the ledger moved is the banker's posting of the
            # settlement (the stacked cards are not the seeds': those differ, as they should).
            replayed = await server.read(partial(replay.replay_round, round_id=mine["id"]))
            assert replayed.moved == replayed.owed, where
            assert replayed.owed["house"] == fee, where
        await player.send("leave")
        await banker.send("leave")
    await server.check()


@pytest.mark.parametrize("rules", ["mini", "classic-8deck"])
def test_a_cut_shoe_rule_set_at_a_player_banked_table_is_refused_naming_the_table(
    tmp_path: Path, rules: str
) -> None:
    path = tmp_path / "tables.toml"
    path.write_text(
        f'[[table]]\nid = "dealt-{rules}"\nname = "x"\nrules = "{rules}"\nchips = ["1"]\n'
        'min = "2"\nmax = "20"\nbanked = { seats = 1 }\n'
    )
    with pytest.raises(TableConfigError, match=f"dealt-{rules}.*shuffles before every round"):
        load_tables(path)
