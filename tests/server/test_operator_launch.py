"""Operators in-process: the operators file, signatures, launch codes (single use, 60 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from baccarat.server.db.database import Database
from baccarat.server.errors import ServiceError
from baccarat.server.ledger import SystemAccounts
from baccarat.server.operators import launch, signing
from baccarat.server.operators.config import (
    Operator,
    OperatorConfigError,
    check_operator_tables,
    load_operators,
)
from baccarat.server.tables import load_tables

from .conftest import FakeClock

SECRET = "sixteen-chars-or-more"
TABLES = load_tables()


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "operators.toml"
    path.write_text(text)
    return path


GOOD = """
[[operator]]
id = "acme"
secret_env = "ACME_SECRET"
wallet_url = "http://127.0.0.1:9/wallet/"
currencies = ["USD", "EUR"]
timeout_s = 0.5
"""


def test_an_operator_is_read_with_its_secret_from_the_environment(tmp_path: Path) -> None:
    operators = load_operators(write(tmp_path, GOOD), {"ACME_SECRET": SECRET})
    acme = operators["acme"]
    assert (acme.wallet_url, acme.currencies, acme.tables, acme.timeout_s) == (
        "http://127.0.0.1:9/wallet", ("USD", "EUR"), None, 0.5,
    )  # fmt: skip
    assert SECRET not in repr(acme)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (("ACME_SECRET", "ACME_MISSING"), "must hold a secret"),
        (('"USD", "EUR"', '"usd"'), "ISO 4217"),
        (("timeout_s = 0.5", "timeout_s = 0"), "timeout_s"),
        (('id = "acme"', 'id = "Acme Corp"'), "id is"),
        (("http://127.0.0.1:9/wallet/", "ftp://x"), "wallet_url"),
        (("timeout_s = 0.5", "timeout_s = 1\nsecret = 'x'"), "unknown keys secret"),
    ],
)
def test_a_bad_operators_file_is_refused_with_its_reason(
    tmp_path: Path, change: tuple[str, str], says: str
) -> None:
    with pytest.raises(OperatorConfigError, match=says):
        load_operators(write(tmp_path, GOOD.replace(*change)), {"ACME_SECRET": SECRET})


def test_an_operator_may_not_list_a_player_banked_table(tmp_path: Path) -> None:
    text = GOOD + 'tables = ["table-i", "banked-i"]\n'
    operators = load_operators(write(tmp_path, text), {"ACME_SECRET": SECRET})
    with pytest.raises(OperatorConfigError, match="player-banked"):
        check_operator_tables(operators, TABLES)


def test_signatures_are_the_hmac_of_the_message_and_nothing_else() -> None:
    body = b'{"player":"u42"}'
    signature = signing.sign(SECRET, body)
    assert len(signature) == 64 and signing.matches(SECRET, body, signature)
    assert signing.matches(SECRET, body, signature.upper())  # hex in either case
    assert not signing.matches(SECRET, body + b" ", signature)
    assert not signing.matches("another-secret-entirely", body, signature)
    assert not signing.matches(SECRET, body, None)


def acme(tables: tuple[str, ...] | None = None) -> Operator:
    return Operator("acme", SECRET, "http://127.0.0.1:9/wallet", ("USD", "EUR"), tables)


def body(**fields: object) -> dict[str, object]:
    return {"request_uuid": "r1", "player": "u42", "token": "t", "currency": "USD",
            "language": "de", "table": "table-i", "lobby_url": "http://x/", "demo": False,
            } | fields  # fmt: skip


def test_a_launch_code_is_used_once(db: Database, system: SystemAccounts) -> None:
    code = db.run_write(lambda uow: launch.create(uow, acme(), TABLES, body()))
    started = db.run_write(lambda uow: launch.redeem(uow, code, system, 3600))
    assert launch.session_kind(started.token) == "real"
    assert (started.session.external_player, started.session.language) == ("u42", "de")
    with pytest.raises(ServiceError) as refused:
        db.run_write(lambda uow: launch.redeem(uow, code, system, 3600))
    assert (refused.value.code, refused.value.details["reason"]) == ("invalid_launch_code", "used")


def test_a_launch_code_expires_after_60_seconds(
    db: Database, system: SystemAccounts, clock: FakeClock
) -> None:
    code = db.run_write(lambda uow: launch.create(uow, acme(), TABLES, body()))
    clock.advance(60)
    with pytest.raises(ServiceError) as refused:
        db.run_write(lambda uow: launch.redeem(uow, code, system, 3600))
    assert refused.value.details["reason"] == "expired"
    with pytest.raises(ServiceError) as unknown:
        db.run_write(lambda uow: launch.redeem(uow, "no-such-code", system, 3600))
    assert unknown.value.details["reason"] == "unknown"


def test_ended_launch_codes_are_purged_a_few_at_a_launch_an_hour_after_they_end(
    db: Database, system: SystemAccounts, clock: FakeClock
) -> None:
    def count() -> int:
        return int(db.run_read(lambda uow: uow.scalar("SELECT count(*) FROM operator_launches")))

    def new() -> str:
        return db.run_write(lambda uow: launch.create(uow, acme(), TABLES, body()))

    used = new()
    db.run_write(lambda uow: launch.redeem(uow, used, system, 3600))
    for _ in range(11):
        new()
    clock.advance(60 + 3599)  # ended, not an hour ago yet: kept (their page says why)
    new()
    assert count() == 13
    assert db.run_read(lambda uow: launch.ended(uow, used)) == ("de", "http://x/")
    clock.advance(1)
    new()  # the oldest eight go (the used one among them), never more at once
    assert count() == 14 - launch.PURGE_PER_LAUNCH
    assert db.run_read(lambda uow: launch.ended(uow, used)) is None
    new()  # the four left of the twelve, and not the two still in their hour
    assert count() == 3
    if db.dialect == "sqlite":  # found by the index on their expiry, not by a scan
        plan = db.run_read(lambda uow: uow.all(
            "EXPLAIN QUERY PLAN SELECT code_hash FROM operator_launches "
            "WHERE expires_us <= 0 ORDER BY expires_us LIMIT 8"))  # fmt: skip
        assert "USING INDEX ix_operator_launches_expires_us" in str(plan)


def test_one_player_of_ours_per_operator_player_and_currency(
    db: Database, system: SystemAccounts
) -> None:
    def player(**fields: object) -> int:
        code = db.run_write(lambda uow: launch.create(uow, acme(), TABLES, body(**fields)))
        return db.run_write(lambda uow: launch.redeem(uow, code, system, 3600)).session.player_id

    first = player()
    assert player() == first
    assert len({first, player(player="u43")}) == 2


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"currency": "JPY"}, "unsupported_currency"),  # the operator has no JPY
        ({"currency": "EUR", "table": "table-iii"}, "unsupported_currency"),  # no EUR limits
        ({"table": "banked-i"}, "player_banked_table"),
        ({"table": "nope"}, "unknown_table"),
        ({"language": "fr"}, "invalid_body"),
        ({"player": ""}, "invalid_body"),
        ({"demo": "yes"}, "invalid_body"),
    ],
)
def test_a_launch_is_refused_with_a_clear_code(
    db: Database, fields: dict[str, object], code: str
) -> None:
    with pytest.raises(ServiceError) as refused:
        db.run_write(lambda uow: launch.create(uow, acme(), TABLES, body(**fields)))
    assert refused.value.code == code


def test_a_launch_to_a_table_the_operator_does_not_offer_is_refused(db: Database) -> None:
    with pytest.raises(ServiceError) as refused:
        db.run_write(lambda uow: launch.create(uow, acme(("table-ii",)), TABLES, body()))
    assert refused.value.code == "table_not_offered"


def test_shared_tables_are_offered_on_an_operators_wallet_in_their_currency(
    db: Database,
) -> None:
    offered = {t.id for t in launch.offered(acme(), TABLES, "USD")}
    shared = {t.id for t in TABLES.values() if t.shared is not None}
    assert shared and "table-i" in offered and shared <= offered
    assert db.run_write(lambda uow: launch.create(uow, acme(), TABLES, body(table="speed")))
    # One pot on the felt: a shared table plays in its own currency alone.
    assert not shared & {t.id for t in launch.offered(acme(), TABLES, "EUR")}
    with pytest.raises(ServiceError) as refused:
        db.run_write(
            lambda uow: launch.create(uow, acme(), TABLES, body(table="speed", currency="EUR"))
        )
    assert refused.value.code == "unsupported_currency"


def test_what_an_operator_round_may_tell_the_player_is_in_all_four_catalogs() -> None:
    import json

    from baccarat.server.operators.outbox import REFUSALS

    web = Path(__file__).resolve().parents[2] / "src" / "baccarat" / "web" / "i18n"
    keys = {f"error.{code}" for code in ("operator_refused", "operator_unavailable",
                                          "mode_not_in_session", "invalid_launch_code",
                                          "unsupported_currency", "table_not_offered")}  # fmt: skip
    keys |= {f"operator.{status}" for status in REFUSALS} | {"round.payout_pending"}
    for language in ("en", "de", "da", "sv"):
        catalog = json.loads((web / f"{language}.json").read_text("utf-8"))
        assert keys <= set(catalog), (language, sorted(keys - set(catalog)))
