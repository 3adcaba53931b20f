"""Side bets through the API: the tables' bet lists, limits, settlement and verification."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from baccarat.core import Bets, Card, Coup, Hand, get_rules, settle
from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import Status, verify_history
from baccarat.server import replay
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import load_tables
from baccarat.server.tables import TableConfigError

from ..harness import Api
from .conftest import BACKENDS
from .support import StackedShoes

# Every bet of the deluxe table, at its minimums (side bets $1, Big/Small and Banker $5).
DELUXE_BETS: dict[str, Any] = {
    "banker": 500,
    "player_pair": 100,
    "banker_pair": 100,
    "either_pair": 100,
    "perfect_pair": 100,
    "player_dragon": 100,
    "banker_dragon": 100,
    "big": 500,
    "small": 500,
}
SIDE_BETS = {"player_pair", "banker_pair", "either_pair", "perfect_pair", "player_dragon",
             "banker_dragon", "big", "small"}  # fmt: skip


async def balance(api: Api, token: str) -> int:
    wallet = await api.client.get("/api/wallet", headers=api.auth(token, None))
    return int(wallet.json()["fun"])


@pytest.mark.anyio
async def test_tables_list_the_bets_they_take_with_limits_pays_and_rtp(api: Api) -> None:
    tables = {t["id"]: t for t in (await api.client.get("/api/tables")).json()}
    deluxe = tables["deluxe"]["bets"]
    assert list(deluxe) == ["player", "banker", "tie", *sorted(SIDE_BETS, key=list(deluxe).index)]
    assert set(deluxe) == {"player", "banker", "tie"} | SIDE_BETS
    exact = {key: deluxe["player_pair"][key] for key in ("rtp", "rtp_exact", "rtp_percent")}
    assert deluxe["player_pair"] == {"min": 100, "max": 10_000, "unit": 100,
                                     "pays": {"pair": "11"}, **exact}  # fmt: skip
    assert exact["rtp"] == float(Fraction(exact["rtp_exact"]))
    assert deluxe["perfect_pair"]["pays"] == {"one": "25", "both": "200"}
    assert deluxe["banker_dragon"]["pays"]["natural_tie"] == "push"
    assert deluxe["big"]["pays"] == {"big": "27/50"} and deluxe["small"]["min"] == 500
    assert deluxe["banker"] == {"min": 500, "max": 50_000, "unit": 100,
                                "rtp": tables["deluxe"]["rtp"]["banker"],
                                "rtp_exact": deluxe["banker"]["rtp_exact"],
                                "rtp_percent": deluxe["banker"]["rtp_percent"],
                                "pays": {"win": "19/20", "win_with_6": "19/20",
                                         "win_three_card_7": "19/20", "tie": "push"}}  # fmt: skip
    assert deluxe["tie"]["min"] == 500 and deluxe["tie"]["min_beside"] == 100
    assert set(tables["ez"]["bets"]) == {"player", "banker", "tie", "dragon7", "panda8"}
    assert tables["ez"]["bets"]["banker"]["pays"]["win_three_card_7"] == "push"
    assert set(tables["no-commission"]["bets"]) == {"player", "banker", "tie", "super6"}
    # Today's tables (and the player-banked ones) take the three main bets only.
    for table in ("table-i", "mini", "single-deck", "banked-i"):
        assert list(tables[table]["bets"]) == ["player", "banker", "tie"]
    one = (await api.client.get("/api/tables/deluxe")).json()
    assert one["bets"] == deluxe


@pytest.mark.parametrize(
    ("table", "bets", "code", "bet"),
    [
        ("table-i", {"player": 500, "player_pair": 100}, "bet_not_offered", "player_pair"),
        ("ez", {"banker": 500, "super6": 100}, "bet_not_offered", "super6"),
        ("deluxe", {"banker": 500, "dragon7": 100}, "bet_not_offered", "dragon7"),
        ("deluxe", {"banker": 500, "perfect_pair": 5_100}, "bet_above_table_max", "perfect_pair"),
        ("deluxe", {"banker": 500, "player_pair": 50}, "bet_below_table_min", "player_pair"),
        ("deluxe", {"small": 400}, "bet_below_table_min", "small"),
        ("deluxe", {"banker": 500, "big": 50_100}, "bet_above_table_max", "big"),
    ],
)
@pytest.mark.anyio
async def test_a_bet_the_table_does_not_take_or_outside_its_limits_moves_no_money(
    api: Api, table: str, bets: dict[str, Any], code: str, bet: str
) -> None:
    token = await api.player()
    refused = await api.play(token, table, **bets)
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == code
    assert refused.json()["error"]["details"]["bet"] == bet
    assert await balance(api, token) == 100_000
    history = await api.client.get("/api/history", headers=api.auth(token, None))
    assert history.json()["items"] == []


@pytest.mark.anyio
async def test_every_deluxe_side_bet_settles_by_its_pay_table(api: Api) -> None:
    # Player Kh Kh (a perfect pair, 0), banker 9s Kc (a natural 9): four cards.
    api.shoes.current = StackedShoes("Kh 9s Kh Kc")
    token = await api.player()
    played = (await api.play(token, "deluxe", **DELUXE_BETS)).json()
    returned = {name: bet["returned"] for name, bet in played["bets"].items()}
    assert returned == {
        "banker": 975,  # 19:20
        "player_pair": 1_200,  # 11:1
        "banker_pair": 0,
        "either_pair": 600,  # 5:1
        "perfect_pair": 2_600,  # 25:1 (one hand)
        "player_dragon": 0,
        "banker_dragon": 200,  # a natural win, 1:1
        "big": 0,
        "small": 1_250,  # 1.5:1 on four cards
    }
    assert played["stake"] == 2_100 and played["win"] == 6_825
    assert await balance(api, token) == 100_000 - 2_100 + 6_825


@pytest.mark.anyio
async def test_admin_replay_settles_side_bets_and_names_a_changed_payout(api: Api) -> None:
    token = await api.player()
    played = (await api.play(token, "deluxe", **DELUXE_BETS)).json()
    replayed = await api.casino.db.read(lambda uow: replay.replay_round(uow, played["id"]))
    assert replayed.ok, replayed.mismatches
    assert {b.bet for b in replayed.record.bets} == set(DELUXE_BETS)
    # A side bet's recorded payout changed (by hand, in the database) is a mismatch.
    changed = {**played["bets"], "big": {**played["bets"]["big"], "returned": 123_456}}
    await api.casino.db.write(
        lambda uow: uow.run(
            "UPDATE rounds SET bets = :b WHERE id = :id",
            {"b": json.dumps(changed, separators=(",", ":")), "id": played["id"]},
        )
    )
    tampered = await api.casino.db.read(lambda uow: replay.replay_round(uow, played["id"]))
    assert not tampered.ok
    assert any(m.startswith("bets.big.returned: expected") for m in tampered.mismatches)


@pytest.mark.anyio
@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_round_with_every_deluxe_side_bet_verifies_from_its_export(api: Api) -> None:
    token = await api.player()
    auth = api.auth(token, None)
    rounds = [(await api.play(token, "deluxe", **DELUXE_BETS)).json() for _ in range(3)]
    rules = get_rules("online-8deck-tie8")
    for played in rounds:
        coup = Coup(
            Hand(tuple(Card.parse_many(" ".join(played["player"]["cards"])))),
            Hand(tuple(Card.parse_many(" ".join(played["banker"]["cards"])))),
        )
        assert played["bets"] == settle(rules, Bets(DELUXE_BETS), coup).to_json()
    await api.client.post("/api/fairness/rotate", json={"mode": "fun"}, headers=auth)
    exported = (await api.client.get("/api/history/export?mode=fun", headers=auth)).text
    report = verify_history(parse_history(exported.splitlines()))
    assert [r.status for r in report.rounds] == [Status.VERIFIED] * 3, report.summary()
    # A side bet's payout changed in the export is named.
    lines = [json.loads(line) for line in exported.splitlines()]
    lines[1]["bets"]["perfect_pair"]["returned"] += 100
    tampered = verify_history(parse_history([json.dumps(line) for line in lines]))
    differences = [str(d) for d in tampered.rounds[1].differences]
    assert any(d.startswith("bets.perfect_pair.returned: expected") for d in differences)
    assert tampered.rounds[0].status is Status.VERIFIED


def test_player_banked_tables_take_the_main_bets_only(tmp_path: Path) -> None:
    banked = load_tables()["banked-i"]
    with pytest.raises(ServiceError) as refused:
        banked.check_bets(Bets(player=500, player_pair=100))
    assert refused.value.code == "bet_not_offered"
    assert refused.value.details["offered"] == ["player", "banker", "tie"]
    path = tmp_path / "tables.toml"
    path.write_text(
        '[[table]]\nid = "b"\nrules = "online-6deck-tie9"\nchips = ["1"]\nmin = "2"\n'
        'max = "20"\nbanked = { seats = 1 }\n[table.bets.player_pair]\nmin = "1"\nmax = "5"\n'
    )
    with pytest.raises(TableConfigError, match="main bets only"):
        load_tables(path)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ('[table.bets.super6]\nmin = "1"\nmax = "5"\n', "has no 'super6' bet"),
        ('[table.bets.player]\nmin = "1"\nmax = "5"\n', "the table's min and max"),
        ('[table.bets.big]\nmin = "5"\n', "needs a min and a max"),
        ('[table.bets.big]\nmin = "5"\nmax = "1"\n', "min <= max"),
    ],
)
def test_a_tables_side_bets_are_its_rule_sets_with_limits(
    tmp_path: Path, section: str, message: str
) -> None:
    path = tmp_path / "tables.toml"
    path.write_text(
        '[[table]]\nid = "t"\nrules = "online-6deck-tie9"\nchips = ["1"]\nmin = "2"\n'
        'max = "20"\n' + section
    )
    with pytest.raises(TableConfigError, match=message):
        load_tables(path)


GOLDEN = Path(__file__).parent.parent / "data" / "golden_odds.json"


@pytest.mark.anyio
async def test_the_tables_rtp_of_every_bet_is_the_published_figure(api: Api) -> None:
    """The golden house edges (Wizard of Odds, tests/data/golden_odds.json) at the tables
    whose rule set they describe, to the decimals published."""
    tables = (await api.client.get("/api/tables")).json()
    checked = set()
    for entry in json.loads(GOLDEN.read_text("utf-8"))["side_bets"]:
        for bet, edge in (entry.get("house_edge_percent") or {}).items():
            tolerance = 0.5 * 10 ** -(len(edge.split(".")[1]) + 2)
            for table in tables:
                rules = table["rules"]
                if (
                    rules["decks"] != entry["decks"]
                    or entry.get("rules", rules["name"]) != rules["name"]
                    or "multipliers" in rules  # another game: its pays take multipliers
                ):
                    continue
                if bet not in table["bets"] or (bet == "banker" and "rules" not in entry):
                    continue
                rtp = table["bets"][bet]["rtp"]
                assert rtp is not None and abs(rtp - (1 - float(edge) / 100)) <= tolerance, (
                    table["id"], bet, rtp, edge,
                )  # fmt: skip
                assert table["rtp"][bet] == rtp
                checked.add((table["id"], bet))
    assert {("deluxe", "player_pair"), ("deluxe", "banker_dragon"), ("ez", "dragon7"),
            ("ez", "panda8"), ("ez", "banker"), ("no-commission", "super6")} <= checked  # fmt: skip


def test_a_table_remembers_which_bets_it_takes_and_agrees_with_its_checks() -> None:
    deluxe = load_tables()["deluxe"]
    cases = [
        Bets(banker=500, player_pair=100),  # taken
        Bets(banker=500, player_pair=100).doubled(),  # taken: twice is still in the limits
        Bets(banker=1),  # under the minimum
        Bets(player=500, tie=100, banker=10**9),  # over the maximum
        Bets(banker=500, panda8=100),  # a side bet deluxe does not offer
    ]
    for bets in cases:
        try:
            deluxe.check_bets(bets)
            expected = True
        except ServiceError:
            expected = False
        # Asked twice: the remembered answer is the checked one.
        assert deluxe.takes(bets) is expected and deluxe.takes(bets) is expected, bets
    assert [deluxe.takes(b) for b in cases] == [True, True, False, False, False]
