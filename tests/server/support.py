"""Helpers shared by the server tests."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from baccarat.core import Card, Lightning, MultiplierTerms, RuleSet, Shoe
from baccarat.server import wallet
from baccarat.server.history import iso_time

from ..harness import Api

# One table of a tables file, its own sections to follow (``one_table``).
ONE_TABLE = """
[[table]]
id = "t"
rules = "{rules}"
chips = ["1", "5"]
min = "1"
max = "10"
"""


def one_table(folder: Path, sections: str, rules: str = "online-6deck-tie9") -> Path:
    """A tables file of one table ``t`` with these sections (``[table.banked]``, ...)."""
    path = folder / "tables.toml"
    path.write_text(ONE_TABLE.format(rules=rules) + sections)
    return path


# Player K Q (0), banker 9 K (natural 9): the banker wins, a player bet loses.
BANKER_WINS = "Kh 9s Qd Kc"
# Player 9 K (natural 9), banker K Q (0): the player wins.
PLAYER_WINS = "9h Ks Kd Qc"
# Player 8 K, banker 8 Q: a tie of naturals.
TIE = "8h 8s Kd Qc"


class StackedShoes:
    """A shoe factory that deals the same stacked cards for every shuffle (tests only)."""

    def __init__(self, cards: str):
        self.cards = Card.parse_many(cards)
        self.calls: list[tuple[str, str, int, int | None]] = []

    def __call__(
        self, rules: RuleSet, server_seed: str, client_seed: str, nonce: int, cut: int | None
    ) -> Shoe:
        self.calls.append((server_seed, client_seed, nonce, cut))
        return Shoe.stacked(self.cards)


class StackedLightning:
    """A multiplier cards' source that draws the same stacked cards for every coup (tests
    only): ``"Ah:3 Kd:2"``, each card and its multiplier."""

    def __init__(self, cards: str):
        self.cards = tuple(
            Lightning(Card.parse(card), int(times))
            for card, times in (one.split(":") for one in cards.split())
        )
        self.calls: list[tuple[str, str, int, int]] = []

    def __call__(
        self, terms: MultiplierTerms, server_seed: str, client_seed: str, nonce: int,
        position: int,
    ) -> tuple[Lightning, ...]:  # fmt: skip
        self.calls.append((server_seed, client_seed, nonce, position))
        return self.cards


def error_code(response: object) -> str:
    """The stable code of an error answer."""
    code: str = response.json()["error"]["code"]  # type: ignore[attr-defined]
    return code


def self_signed(folder: Path, name: str) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (P-256, two days) and its key, made by openssl in
    ``folder`` as ``name.pem`` and ``name.key``."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


async def funded(api: Api, nickname: str = "alice", real: int = 1_000_000) -> str:
    """A logged-in player with real money (an operator deposit) and no reality check due
    for a day."""
    token = await api.player(nickname)
    system = api.casino.system

    def deposit(uow: Any) -> None:
        player_id = int(uow.scalar("SELECT id FROM players WHERE nickname = :n", {"n": nickname}))
        wallet.deposit(uow, player_id, real, system)

    await api.casino.db.write(deposit)
    answer = await put(api, token, "/reality-check", {"minutes": 1440})
    assert answer.status_code == 200, answer.text
    return token


async def put(api: Api, token: str, path: str, body: Any) -> Any:
    return await api.client.put(f"/api/responsible{path}", json=body, headers=api.auth(token, None))


async def operator_session(api: Api, currency: str) -> Any:
    """A game session of ours for an operator's player (``u7`` of ``acme``, whose wallet is
    nowhere: its calls go unanswered), launched and redeemed in process."""
    return (await operator_launched(api, currency)).session


async def operator_launched(api: Api, currency: str, *, demo: bool = False) -> Any:
    """``operator_session``'s launch exchanged (``launch.Started``: the session's token and
    the session); ``demo``: a session playing our play money in the currency."""
    import uuid

    from baccarat.server.wallets.operator import launch
    from baccarat.server.wallets.operator.config import Operator

    acme = Operator("acme", "sixteen-chars-or-more", "http://127.0.0.1:9/wallet", (currency,),
                    None, 1)  # fmt: skip
    casino = api.casino
    body = {
        "request_uuid": str(uuid.uuid4()),
        "timestamp": iso_time(api.clock()),
        "player": "u7",
        "token": "t",
        "currency": currency,
        "language": "en",
        "demo": demo,
    }
    code = await casino.db.write(lambda uow: launch.create(uow, acme, casino.tables, body))
    return await casino.db.write(lambda uow: launch.redeem(uow, code, casino.system, 3600))


# -- rounds on an operator's wallet, in process (the outbox driven by hand) ------------------

OPERATOR_TIMEOUT_S = 0.5


def acme(protocol: str = "v1") -> Any:
    """The operator ``acme`` speaking ``protocol``, whose wallet is nowhere."""
    from baccarat.server.wallets.operator.config import Operator
    from baccarat.server.wallets.operator.protocols import CONTRACTS

    return Operator("acme", "sixteen-chars-or-more", "http://127.0.0.1:9/wallet", ("USD",),
                    None, OPERATOR_TIMEOUT_S, CONTRACTS[protocol])  # fmt: skip


def operator_player(db: Any, system: Any, player: str = "u42") -> Any:
    """A session of ``acme``'s player, launched and redeemed (``outbox.OperatorSession``)."""
    import uuid

    from baccarat.server.kinds import load_tables
    from baccarat.server.wallets.operator import launch

    body = {"request_uuid": str(uuid.uuid4()), "timestamp": iso_time(db.clock()),
            "player": player, "token": "t", "currency": "USD", "language": "en",
            "demo": False}  # fmt: skip
    code = db.run_write(lambda uow: launch.create(uow, acme(), load_tables(), body))
    return db.run_write(lambda uow: launch.redeem(uow, code, system, 3600)).session


def operator_round(db: Any, session: Any, protocol: str = "v1", table: str = "table-i") -> Any:
    """A round of a banker bet of 1000 on the session's operator's wallet, in ``protocol``:
    its first call (``outbox.Call``), written, not sent."""
    from baccarat.core import Bets
    from baccarat.server.dealing import FairShoes
    from baccarat.server.kinds import load_tables
    from baccarat.server.kinds.house import service as rounds
    from baccarat.server.play.round import Dealer
    from baccarat.server.wallets.operator import outbox

    bets, here = Bets({"banker": 1000}), load_tables()[table]

    def work(uow: Any) -> Any:
        wallet = outbox.OperatorWallet(session, here.id, bets.to_json(),
                                       outbox.lease_for(OPERATOR_TIMEOUT_S),
                                       acme(protocol).contract)  # fmt: skip
        rounds.play_round(uow, Dealer(FairShoes(), wallet), session.player_id, here, "real",
                          bets)  # fmt: skip
        assert wallet.first is not None
        return wallet.first

    return db.run_write(work)


def operator_answer(db: Any, call: Any, status: str, balance: int | None = 5000,
                    **more: Any) -> tuple[str, Any]:  # fmt: skip
    """The call answered so (``more``: the answer's other fields): the round's state and the
    next call written, if any."""
    from baccarat.server.wallets.operator import outbox

    given = outbox.Answer(status, balance, 200, **more)
    return db.run_write(lambda uow: outbox.answered(uow, call, given, OPERATOR_TIMEOUT_S, 2.0))
