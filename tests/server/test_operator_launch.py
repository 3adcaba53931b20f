"""Operators in-process: the operators file, signatures, launch codes (single use, 60 s)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import iso_time
from baccarat.server.kinds import load_tables
from baccarat.server.ledger import SystemAccounts
from baccarat.server.wallets.operator import launch, signing
from baccarat.server.wallets.operator.config import (
    Operator,
    OperatorConfigError,
    check_operator_tables,
    load_operators,
)

from ..harness import FakeClock
from .conftest import both_backends
from .interleave import held_while

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
    assert acme.contract.name == "v1"  # none named: API v1
    chosen = load_operators(write(tmp_path, GOOD + 'protocol = "actions"\n'),
                            {"ACME_SECRET": SECRET})  # fmt: skip
    assert chosen["acme"].contract.name == "actions"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (("ACME_SECRET", "ACME_MISSING"), "must hold a secret"),
        (('"USD", "EUR"', '"usd"'), "ISO 4217"),
        (("timeout_s = 0.5", "timeout_s = 0"), "timeout_s"),
        (('id = "acme"', 'id = "Acme Corp"'), "id is"),
        (("http://127.0.0.1:9/wallet/", "ftp://x"), "wallet_url"),
        (("timeout_s = 0.5", "timeout_s = 1\nsecret = 'x'"), "unknown keys secret"),
        (
            ("timeout_s = 0.5", 'timeout_s = 1\nprotocol = "soap"'),
            "protocol is one of 'v1', 'actions', not 'soap'",
        ),
        (("timeout_s = 0.5", "timeout_s = 1\nprotocol = [1]"), "protocol is one of"),
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


def body(db: Database, **fields: object) -> dict[str, object]:
    """A launch of a new request_uuid, sent at the time of the database's clock."""
    return {"request_uuid": str(uuid.uuid4()), "timestamp": iso_time(db.clock()),
            "player": "u42", "token": "t", "currency": "USD", "language": "de",
            "table": "table-i", "lobby_url": "http://x/", "demo": False} | fields  # fmt: skip


def send(db: Database, sent: dict[str, object], operator: Operator | None = None) -> str:
    """The launch's code (the launch as the API takes it once its signature checked)."""
    return db.run_write(lambda uow: launch.create(uow, operator or acme(), TABLES, sent))


def new(db: Database, **fields: object) -> str:
    """A new launch's code."""
    return send(db, body(db, **fields))


def test_a_launch_code_is_used_once(db: Database, system: SystemAccounts) -> None:
    code = new(db)
    started = db.run_write(lambda uow: launch.redeem(uow, code, system, 3600))
    assert launch.session_kind(started.token) == "real"
    assert (started.session.external_player, started.session.language) == ("u42", "de")
    with pytest.raises(ServiceError) as refused:
        db.run_write(lambda uow: launch.redeem(uow, code, system, 3600))
    assert (refused.value.code, refused.value.details["reason"]) == ("invalid_launch_code", "used")


def test_a_launch_code_expires_after_60_seconds(
    db: Database, system: SystemAccounts, clock: FakeClock
) -> None:
    code = new(db)
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

    used = new(db)
    db.run_write(lambda uow: launch.redeem(uow, used, system, 3600))
    for _ in range(11):
        new(db)
    clock.advance(60 + 3599)  # ended, not an hour ago yet: kept (their page says why)
    new(db)
    assert count() == 13
    assert db.run_read(lambda uow: launch.ended(uow, used)) == ("de", "http://x/")
    clock.advance(1)
    new(db)  # the oldest eight go (the used one among them), never more at once
    assert count() == 14 - launch.PURGE_PER_LAUNCH
    assert db.run_read(lambda uow: launch.ended(uow, used)) is None
    new(db)  # the four left of the twelve, and not the two still in their hour
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
        code = new(db, **fields)
        return db.run_write(lambda uow: launch.redeem(uow, code, system, 3600)).session.player_id

    first = player()
    assert player() == first
    assert len({first, player(player="u43")}) == 2


def launches(db: Database) -> int:
    return int(db.run_read(lambda uow: uow.scalar("SELECT count(*) FROM operator_launches")))


@both_backends
def test_a_launch_sent_again_answers_its_first_code_and_never_a_second_session(
    db: Database, system: SystemAccounts, clock: FakeClock
) -> None:
    first = body(db)
    code = send(db, first)
    assert send(db, first) == code  # the same signed bytes again
    db.run_write(lambda uow: launch.redeem(uow, code, system, 3600))
    clock.advance(4 * 60)
    assert send(db, first) == code  # used: still the first answer, which opens nothing
    with pytest.raises(ServiceError) as used:
        db.run_write(lambda uow: launch.redeem(uow, code, system, 3600))
    assert used.value.details["reason"] == "used"
    # Sent again by the operator with the time then: the same launch.
    assert send(db, first | {"timestamp": iso_time(clock())}) == code
    assert launches(db) == 1
    # Past the window its time refuses it, as any launch that old.
    clock.advance(2 * 60)
    with pytest.raises(ServiceError) as late:
        send(db, first)
    assert (late.value.code, late.value.status) == ("launch_out_of_window", 401)
    assert launches(db) == 1


@both_backends
def test_a_request_uuid_sent_with_another_launch_is_refused(db: Database) -> None:
    first = body(db)
    code = send(db, first)
    for changed in ({"player": "u43"}, {"demo": True}, {"table": None}):
        with pytest.raises(ServiceError) as refused:
            send(db, first | changed)
        assert (refused.value.code, refused.value.status) == ("request_uuid_reused", 409)
        assert refused.value.details == {"request_uuid": first["request_uuid"]}
    # A request_uuid is the operator's own: another operator's is another launch.
    other = Operator("other", SECRET, "http://127.0.0.1:9/wallet", ("USD",), None)
    assert send(db, first, other) not in ("", code)
    # The operator's secret changed since (a restart): the first code cannot be made again.
    rotated = Operator("acme", "another-secret-of-acme", "http://127.0.0.1:9/wallet", ("USD",),
                       None)  # fmt: skip
    with pytest.raises(ServiceError) as refused:
        send(db, first, rotated)
    assert refused.value.code == "request_uuid_reused"
    assert launches(db) == 2


@both_backends
def test_a_launch_is_accepted_only_within_five_minutes_of_the_clock(
    db: Database, clock: FakeClock
) -> None:
    edge = launch.WINDOW_US // 1_000_000
    for off in (-edge - 1, edge + 1):
        with pytest.raises(ServiceError) as refused:
            new(db, timestamp=iso_time(clock() + off * 1_000_000))
        assert refused.value.code == "launch_out_of_window"
        assert refused.value.details["server_time"] == iso_time(clock())
    for off in (-edge, edge):
        assert new(db, timestamp=iso_time(clock() + off * 1_000_000))
    # Any ISO 8601 form of the time, with its offset.
    assert new(db, timestamp="2026-09-21T16:13:20+02:00") and iso_time(clock()) == (
        "2026-09-21T14:13:20Z")  # fmt: skip
    for bad in (None, "", "yesterday", 1790000000, "2026-09-21T14:13:20Z" * 4):
        with pytest.raises(ServiceError) as refused:
            new(db, timestamp=bad)
        assert (refused.value.code, refused.value.details) == (
            "invalid_body", {"field": "timestamp"})  # fmt: skip
    assert launches(db) == 3


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_same_launch_at_once_on_two_connections_is_one_launch(db: Database) -> None:
    first = body(db)

    def create(uow: UnitOfWork) -> str:
        return launch.create(uow, acme(), TABLES, first)

    # The second waits for the first's row (its transaction open), then finds it.
    one, two = held_while(db, create, create)
    assert one.result() == two.result()
    assert launches(db) == 1


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
        new(db, **fields)
    assert refused.value.code == code


def test_a_launch_to_a_table_the_operator_does_not_offer_is_refused(db: Database) -> None:
    with pytest.raises(ServiceError) as refused:
        send(db, body(db), acme(("table-ii",)))
    assert refused.value.code == "table_not_offered"


def test_shared_tables_are_offered_on_an_operators_wallet_in_their_currency(
    db: Database,
) -> None:
    offered = {t.id for t in launch.offered(acme(), TABLES, "USD")}
    shared = {t.id for t in TABLES.values() if t.kind == "shared"}
    assert shared and "table-i" in offered and shared <= offered
    assert new(db, table="speed")
    # One pot on the felt: a shared table plays in its own currency alone.
    assert not shared & {t.id for t in launch.offered(acme(), TABLES, "EUR")}
    with pytest.raises(ServiceError) as refused:
        new(db, table="speed", currency="EUR")
    assert refused.value.code == "unsupported_currency"


def test_what_an_operator_round_may_tell_the_player_is_in_all_four_catalogs() -> None:
    import json

    from baccarat.server.wallets.operator.contract import CHOICES
    from baccarat.server.wallets.operator.protocols import refusals

    web = Path(__file__).resolve().parents[2] / "src" / "baccarat" / "web" / "i18n"
    keys = {f"error.{code}" for code in ("operator_refused", "operator_unavailable",
                                          "mode_not_in_session", "invalid_launch_code",
                                          "unsupported_currency", "table_not_offered",
                                          "operator_limit", "unknown_message")}  # fmt: skip
    # Every contract's refusals, and the operator's message with its choices.
    keys |= {f"operator.{status}" for status in refusals()} | {"round.payout_pending"}
    keys |= {f"operator.choice_{choice}" for choice in CHOICES} | {"operator.message_title"}
    for language in ("en", "de", "da", "sv"):
        catalog = json.loads((web / f"{language}.json").read_text("utf-8"))
        assert keys <= set(catalog), (language, sorted(keys - set(catalog)))
