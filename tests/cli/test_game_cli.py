import json

import pytest

from .support import run


def test_odds_json_is_the_documented_contract(capsys, golden):
    status, out, _ = run(capsys, "odds", "--rules", "classic-8deck", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["rules"] == "classic-8deck"
    assert data["decks"] == 8
    assert data["total"] == golden["eight_decks"]["counts"]["total"]
    assert set(data["outcomes"]) == {"banker", "player", "tie"}
    assert data["outcomes"]["banker"]["count"] == golden["eight_decks"]["counts"]["banker"]
    assert abs(data["bets"]["banker"]["house_edge"] - 0.010579) < 5e-7
    assert abs(data["bets"]["tie"]["rtp"] - (1 - 0.143596)) < 5e-7


def test_odds_with_decks_and_removed_cards(capsys):
    status, out, _ = run(capsys, "odds", "--decks", "1", "--remove", "Ah 9s", "--json")
    assert status == 0
    assert json.loads(out)["total"] == 50 * 49 * 48 * 47 * 46 * 45


def test_odds_prints_a_readable_table(capsys):
    status, out, _ = run(capsys, "odds", "--rules", "single-deck")
    assert status == 0
    assert "98.9883%" in out  # banker RTP, single deck
    assert "house edge" in out


def test_rules_lists_every_preset(capsys):
    status, out, _ = run(capsys, "rules", "--json")
    assert status == 0
    names = {r["name"] for r in json.loads(out)}
    assert {"online-6deck-tie9", "mini", "single-deck", "classic-6deck", "classic-8deck"} <= names


def test_deal_json_gives_one_coup(capsys):
    status, out, _ = run(capsys, "deal", "--cards", "4h Kd 8s 2c 3d 9h", "--json")
    assert status == 0
    assert json.loads(out) == {
        "player": {"cards": ["4h", "8s", "3d"], "scores": [2, 5]},
        "banker": {"cards": ["Kd", "2c", "9h"], "scores": [2, 1]},
        "winner": "player",
        "natural": False,
        "cards_used": 6,
    }


def test_deal_all_replays_a_shoe_until_it_may_run_short(capsys):
    cards = "4h Kd 8s 2c 3d 9h 9c 9d Ts Js 5h 5d 5s"
    status, out, _ = run(capsys, "deal", "--cards", cards, "--all", "--json")
    assert status == 0
    coups = json.loads(out)
    assert [c["cards_used"] for c in coups] == [6, 4]
    assert coups[1]["winner"] == "tie"


@pytest.mark.parametrize(
    "argv",
    [
        ("deal", "--cards", "4h Xx 8s 2c"),
        ("deal", "--cards", "4h Kd"),
        ("deal", "--cards", "Th Kd 2s 3c"),
        ("odds", "--rules", "nope"),
        ("odds", "--decks", "9"),
        ("odds", "--decks", "0"),
        ("odds", "--decks", "1", "--remove", "Ah Ah"),
        ("odds", "--decks", "1", "--remove", "Ah Ad Ac As 2h 2d 2c 2s " * 5),
        ("odds", "--bogus"),
    ],
)
def test_bad_input_exits_two_with_one_line_and_no_traceback(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_a_reader_that_stops_early_is_not_an_error():
    # `baccarat fair shuffle ... | head -1`: the pipe is closed before the output is written.
    import subprocess
    import sys

    program = "import sys; from baccarat.cli import main; sys.exit(main())"
    command = [sys.executable, "-c", program, "fair", "shuffle", "--server-seed", "ab" * 32]
    command += ["--client-seed", "x", "--nonce", "0", "--decks", "8"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0
    assert err == b""


def test_odds_lists_every_bet_of_the_rule_set_with_its_pays(capsys):
    status, out, _ = run(capsys, "odds", "--rules", "classic-8deck")
    assert status == 0
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()}
    assert "11:1" in rows["player_pair"] and "10.3614%" in rows["player_pair"]
    assert "25:1 / 200:1" in rows["perfect_pair"]
    assert "table" in rows["player_dragon"] and "2.6517%" in rows["player_dragon"]
    assert "0.54:1" in rows["big"] and "3:2" in rows["small"]
    assert "19:20" in rows["banker"]


@pytest.mark.parametrize(
    ("rules", "banker", "side"),
    [
        ("ez-8deck", ("1:1, 3-card 7 pushes", "1.0183%"), {"dragon7": "40:1", "panda8": "25:1"}),
        ("no-commission-8deck", ("1:1, 6 pays 1:2", "1.4581%"), {"super6": "12:1"}),
    ],
)
def test_odds_of_the_commission_free_games(capsys, rules, banker, side):
    status, out, _ = run(capsys, "odds", "--rules", rules)
    assert status == 0
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()}
    assert all(text in rows["banker"] for text in banker)
    assert all(pays in rows[name] for name, pays in side.items())
    data = json.loads(run(capsys, "odds", "--rules", rules, "--json")[1])
    assert list(data["bets"]) == ["player", "banker", "tie", *side]
    assert all(set(b) == {"house_edge", "rtp"} for b in data["bets"].values())


def test_rules_says_which_bets_each_rule_set_offers(capsys):
    status, out, _ = run(capsys, "rules")
    assert status == 0
    offered = dict(line.split(None, 1) for line in out.split("side bets")[1].splitlines()[1:])
    assert offered["ez-8deck"].split() == ["dragon7", "panda8"]
    assert offered["no-commission-8deck"].split() == ["super6"]
    assert (
        "perfect_pair" in offered["classic-8deck"] and "perfect_pair" not in offered["single-deck"]
    )
    data = json.loads(run(capsys, "rules", "--json")[1])
    ez = next(r for r in data if r["name"] == "ez-8deck")
    assert list(ez["bets"]) == ["player", "banker", "tie", "dragon7", "panda8"]


def test_shoe_shows_the_edges_of_the_bets_asked_for(capsys):
    status, out, _ = run(
        capsys, "shoe", "--rules", "ez-8deck", "--seed", "3", "--bets", "dragon7,panda8"
    )
    assert status == 0
    assert "dragon7 edge" in out and "panda8 edge" in out and "banker edge" not in out
    assert run(capsys, "shoe", "--rules", "ez-8deck", "--seed", "3", "--bets", "big")[0] == 2


def test_odds_of_one_deck_says_one_deck(capsys):
    status, out, _ = run(capsys, "odds", "--decks", "1")
    assert status == 0
    assert out.splitlines()[0] == "rules: 1-deck (1 deck, tie 8:1)"


@pytest.mark.parametrize("rounds", ["-5", "0", "1.5", "ten"])
def test_a_count_that_is_not_one_or_more_says_what_a_count_is(capsys, rounds):
    status, out, err = run(capsys, "simulate", "--rounds", rounds)
    assert status == 2 and out == ""
    said = "a count is a whole number from 1 (1000000, 1_000_000, 1,000,000 or 1e6)"
    assert f"{said}, not {rounds!r}" in err
