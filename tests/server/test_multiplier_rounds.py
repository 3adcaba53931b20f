"""Multiplier baccarat at the house table, through the API: stacked cards and stacked
multiplier cards, the fee taken with the stakes, the money exact and the ledger balanced."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from baccarat.analysis.multiplier import exact
from baccarat.core import Bets, Lightning, MultiplierTerms, get_rules
from baccarat.fairness.history import parse_history, parse_record
from baccarat.fairness.verify import Status, verify_history
from baccarat.server import accounts, replay
from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.dealing import FairShoes, fair_lightning
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as rounds
from baccarat.server.ledger import SystemAccounts
from baccarat.server.wallets.ledger import LedgerWallet

from ..harness import Api
from .office import logged_in
from .support import BANKER_WINS, TIE, StackedLightning, StackedShoes, error_code, funded

TABLE = "lightning"
# Player Ah Ah 7s (9), banker Kd Qc 2c (2): the player wins with the ace of hearts twice.
ACE_TWICE = "Ah Kd Ah Qc 7s 2c"


async def play(api: Api, token: str, cards: str, lightning: str, **bets: Any) -> dict[str, Any]:
    """A round at the multiplier table on these cards and multiplier cards; its answer."""
    api.shoes.current = StackedShoes(cards)
    api.lightning.current = StackedLightning(lightning)
    answer = await api.play(token, TABLE, **bets)
    assert answer.status_code == 201, answer.text
    played: dict[str, Any] = answer.json()
    return played


async def moved(api: Api, transaction: int) -> dict[str, int]:
    """What a ledger transaction moved, by kind of account."""
    rows = await api.read(
        lambda uow: uow.all(
            "SELECT a.kind, SUM(e.amount) FROM ledger_entries e JOIN accounts a "
            "ON a.id = e.account_id WHERE e.transaction_id = :t GROUP BY a.kind",
            {"t": transaction},
        )
    )
    return {str(kind): int(amount) for kind, amount in rows}


async def checked(api: Api, played: dict[str, Any]) -> None:
    """The round's arithmetic (its fee taken, never returned), its ledger transaction (the
    player's net, the house the opposite) and the whole ledger are right."""
    fee = sum(bet.get("fee", 0) for bet in played["bets"].values())
    assert fee == played["fee"] == played["stake"] // 5
    net = played["win"] - played["stake"] - fee
    assert played["balance_after"] == played["balance_before"] + net
    query = "SELECT transaction_id FROM rounds WHERE id = :r"
    transaction = await api.read(lambda uow: uow.scalar(query, {"r": played["id"]}))
    assert await moved(api, int(transaction)) == {"player": net, "house": -net}
    # The fee is a move of its own to the house, beside the stakes' (the one ledger writer).
    entries = await api.read(
        lambda uow: uow.all(
            "SELECT a.kind, e.amount FROM ledger_entries e JOIN accounts a "
            "ON a.id = e.account_id WHERE e.transaction_id = :t",
            {"t": transaction},
        )
    )
    pairs = [(str(kind), int(amount)) for kind, amount in entries]
    assert ("house", fee) in pairs and ("player", -fee) in pairs
    assert ("house", played["stake"]) in pairs
    report = await api.read(audit.check)
    assert report.ok, report.problems


@pytest.mark.anyio
async def test_a_multiplier_card_twice_in_the_winning_hand_multiplies_twice(api: Api) -> None:
    token = await api.player()
    played = await play(api, token, ACE_TWICE, "Ah:3 Kd:8", player=500)
    assert played["lightning"] == [{"card": "Ah", "multiplier": 3},
                                   {"card": "Kd", "multiplier": 8}]  # fmt: skip
    # 3 x 3 on the player's hand (the banker's Kd is not the player bet's): 1:1 x 9.
    assert played["bets"] == {
        "player": {"stake": 500, "fee": 100, "result": "win", "returned": 500 + 9 * 500,
                   "multiplier": 9},
    }  # fmt: skip
    assert played["balance_after"] - played["balance_before"] == 9 * 500 - 100
    await checked(api, played)
    # The history and its export carry the multiplier cards, and the line verifies as
    # written (the fee, the multiplier).
    history = (await api.client.get("/api/history", headers=api.auth(token, None))).json()
    assert history["items"][0]["lightning"] == played["lightning"]
    export = await api.client.get("/api/history/export", headers=api.auth(token, None))
    record = parse_record(json.loads(export.text.splitlines()[0]))
    assert [str(one) for one in record.lightning] == ["Ah x3", "Kd x8"]
    assert record.fees == 100 and record.bets[0].multiplier == 9
    # The back office's recall of the round has them too.
    sam = await logged_in(api, "sam", "support")
    recalled = await api.client.get(f"/admin/api/rounds/{played['id']}", headers=sam.headers)
    assert recalled.json()["round"]["lightning"] == played["lightning"]
    assert recalled.json()["round"]["fee"] == 100


@pytest.mark.anyio
async def test_a_tie_with_a_multiplier_card_in_each_hand_and_a_push_that_keeps_its_fee(
    api: Api,
) -> None:
    token = await api.player()
    # Player 8h Kd, banker 8s Qc: a tie of naturals; 8h on the player's side, Qc the banker's.
    played = await play(api, token, TIE, "8h:2 Qc:4 As:5", tie=500, player=1000)
    assert played["winner"] == "tie"
    # The tie is paid on both hands: 5:1 x (2 x 4). The player bet pushes: its stake comes
    # back, its fee does not.
    assert played["bets"] == {
        "player": {"stake": 1000, "fee": 200, "result": "push", "returned": 1000},
        "tie": {"stake": 500, "fee": 100, "result": "win", "returned": 500 + 5 * 8 * 500,
                "multiplier": 8},
    }  # fmt: skip
    assert played["balance_after"] - played["balance_before"] == 5 * 8 * 500 - 300
    await checked(api, played)
    # A push alone: the balance is down by its fee.
    alone = await play(api, token, TIE, "As:5", banker=500)
    assert alone["bets"]["banker"] == {"stake": 500, "fee": 100, "result": "push",
                                       "returned": 500}  # fmt: skip
    assert alone["balance_after"] == alone["balance_before"] - 100
    await checked(api, alone)


@pytest.mark.anyio
async def test_a_banker_win_pays_19_to_20_times_its_multiplier_and_a_loss_keeps_nothing(
    api: Api,
) -> None:
    token = await api.player()
    # Player Kh Qd (0), banker 9s Kc (a natural 9): the banker's 9s is a 5x card.
    played = await play(api, token, BANKER_WINS, "9s:5 Kh:8", banker=1500, player=500)
    assert played["bets"] == {
        # The player's Kh is an 8x card, but the player bet lost: no multiplier.
        "player": {"stake": 500, "fee": 100, "result": "lose", "returned": 0},
        "banker": {"stake": 1500, "fee": 300, "result": "win",
                   "returned": 1500 + 1500 * 19 * 5 // 20, "multiplier": 5},
    }  # fmt: skip
    await checked(api, played)


@pytest.mark.anyio
async def test_a_stake_whose_fee_is_not_whole_cents_is_refused_and_nothing_moves(
    api: Api,
) -> None:
    token = await api.player()
    before = (await api.client.get("/api/wallet", headers=api.auth(token, None))).json()["fun"]
    refused = await api.play(token, TABLE, player=502)
    assert refused.status_code == 422 and error_code(refused) == "not_a_fee_multiple"
    assert "0.05" in refused.json()["error"]["message"]
    after = (await api.client.get("/api/wallet", headers=api.auth(token, None))).json()["fun"]
    assert after == before


@pytest.mark.anyio
async def test_the_rules_publish_the_terms_and_the_monitor_tracks_rtp_per_unit_wagered(
    api: Api,
) -> None:
    rules = get_rules("multiplier")
    analysis = exact(rules)
    table = (await api.client.get(f"/api/tables/{TABLE}")).json()
    assert table["rules"]["multipliers"] == rules.multipliers.to_json()  # type: ignore[union-attr]
    assert table["rules"]["multipliers"]["fee"] == "1/5"
    for name, bet in table["bets"].items():
        exactly = analysis.bets[name].rtp
        assert bet["rtp_exact"] == f"{exactly.numerator}/{exactly.denominator}"
        assert Fraction(bet["rtp_exact"]) == exactly and bet["rtp"] == float(exactly)
        assert bet["rtp_percent"] == f"{float(exactly) * 100:.4f}"
        assert bet["multiplier"]["max_multiplier"] == analysis.bets[name].max_multiplier
    # A classic table's bets say their RTP the same way, and have no multiplier figures.
    classic = (await api.client.get("/api/tables/table-i")).json()
    assert Fraction(classic["bets"]["banker"]["rtp_exact"]) > Fraction(98, 100)
    assert "multiplier" not in classic["bets"]["banker"]

    token = await api.player()
    for _ in range(2):  # a lost banker bet, twice: 2 x (500 + 100) wagered, nothing back
        await play(api, token, ACE_TWICE, "Ah:3", banker=500)
    finance = await logged_in(api, "fiona", "finance")
    answer = await api.client.get("/admin/api/reports/rtp?period=day", headers=finance.headers)
    (row,) = [r for r in answer.json()["rtp-day"] if r["table"] == TABLE]
    wagered_sd = analysis.bets["banker"].sd / 1.2
    assert (row["bet"], row["bets"], row["stake"], row["returned"]) == ("banker", 2, 1200, 0)
    assert row["theoretical"] == pytest.approx(float(analysis.bets["banker"].rtp))
    assert row["high"] - row["theoretical"] == pytest.approx(3 * wagered_sd / 2**0.5)


@pytest.mark.anyio
async def test_fair_rounds_verify_from_their_export_and_a_changed_multiplier_is_named(
    api: Api,
) -> None:
    token = await api.player()
    auth = api.auth(token, None)
    played = [(await api.play(token, TABLE, player=500, tie=500)).json() for _ in range(3)]
    assert all(1 <= len(one["lightning"]) <= 5 for one in played)
    replayed = await api.read(lambda uow: replay.replay_round(uow, played[0]["id"]))
    assert replayed.ok, replayed.mismatches
    await api.client.post("/api/fairness/rotate", json={"mode": "fun"}, headers=auth)
    lines = (await api.client.get("/api/history/export?mode=fun", headers=auth)).text
    report = verify_history(parse_history(lines.splitlines()))
    assert [r.status for r in report.rounds] == [Status.VERIFIED] * 3, report.summary()
    # The first round's first multiplier card told with another multiplier: named.
    first = json.loads(lines.splitlines()[0])
    card = first["lightning"][0]
    card["multiplier"] = 8 if card["multiplier"] != 8 else 2
    changed = [json.dumps(first), *lines.splitlines()[1:]]
    report = verify_history(parse_history(changed))
    assert report.rounds[0].status is Status.DIFFERS
    assert any(str(d).startswith("lightning.0") for d in report.rounds[0].differences)


@pytest.mark.anyio
async def test_responsible_gaming_counts_the_stake_and_its_fee_as_wagered(api: Api) -> None:
    token = await funded(api)
    limits = await api.client.put("/api/responsible/limits", json={"wager": {"day": 1_100}},
                                  headers=api.auth(token, None))  # fmt: skip
    assert limits.status_code == 200, limits.text
    api.shoes.current = StackedShoes(BANKER_WINS)
    assert (await api.play(token, TABLE, mode="real", player=500)).status_code == 201
    usage = (await api.client.get("/api/responsible", headers=api.auth(token, None))).json()
    assert (usage["usage"]["day"]["wager"], usage["usage"]["day"]["loss"]) == (600, 600)
    # 1,000 staked would be within the limit; with their fees the stakes wager 1,200.
    refused = await api.play(token, TABLE, mode="real", player=500)
    assert error_code(refused) == "wager_limit_reached"


def test_a_house_cut_shoe_draws_each_coups_multiplier_cards_at_its_position(
    db: Database, system: SystemAccounts, tmp_path: Path
) -> None:
    (tmp_path / "tables.toml").write_text(
        '[[table]]\nid = "shoe"\nname = "Shoe"\nrules = "multiplier-shoe"\n'
        'chips = ["1", "5"]\nmin = "5"\nmax = "500"\n'
    )
    table = load_tables(tmp_path / "tables.toml").require("shoe")
    alice = db.run_write(lambda uow: accounts.register(uow, "alice", "hash", system)).id
    calls: list[tuple[Any, ...]] = []

    def recorded(
        terms: MultiplierTerms, server_seed: str, client_seed: str, nonce: int, position: int
    ) -> tuple[Lightning, ...]:
        calls.append((terms, server_seed, client_seed, nonce, position))
        return fair_lightning(terms, server_seed, client_seed, nonce, position)

    dealer = rounds.Dealer(FairShoes(), LedgerWallet(system), lightning=recorded)
    db.run_write(lambda uow: rounds.cut_shoe(uow, dealer, alice, table, "fun", 100))
    played = [
        db.run_write(
            lambda uow: rounds.play_round(uow, dealer, alice, table, "fun", Bets(player=500))
        )
        for _ in range(2)
    ]
    # One shoe, one nonce: each coup's cards are drawn at its own position in the shoe.
    assert [args[3] for args in calls] == [played[0].nonce] * 2
    assert [args[4] for args in calls] == [r.position for r in played]
    assert played[0].position < played[1].position
    assert [r.lightning is not None for r in played] == [True, True]
    report = db.run_read(audit.check)
    assert report.ok, report.problems
