"""Settings reach every worker whole: ``from_env(to_env(s)) == s``."""

from __future__ import annotations

from pathlib import Path

import pytest

from baccarat.cli import main as cli
from baccarat.server.settings import (
    BankedSettings,
    DatabaseUrl,
    LoginThrottle,
    PasswordHashing,
    Settings,
)


def unusual() -> Settings:
    """Settings with every field away from its default."""
    return Settings(
        database=DatabaseUrl.parse("postgresql://casino:secret@db.example:5433/baccarat"),
        data_dir=Path("/srv/casino"),
        tables_file=Path("/srv/casino/tables.toml"),
        session_ttl_s=3600,
        cookie_secure=True,
        passwords=PasswordHashing(time_cost=2, memory_cost=1024, parallelism=2),
        login_throttle=LoginThrottle(free_failures=5, base_delay_s=0.5, max_delay_s=60.0),
        db_threads=3,
        max_batch=7,
        bench_endpoint=True,
        web_dir=Path("/srv/web"),
        migrate_on_start=False,
        banked=BankedSettings(player_s=60, banker_s=20, reconnect_grace=3, poll_s=0.25),
    )


def test_a_workers_settings_equal_the_servers_in_every_field():
    settings = unusual()
    assert settings != Settings(database=settings.database)
    assert Settings.from_env(settings.to_env()) == settings


def test_the_default_settings_survive_the_trip_too():
    settings = Settings.for_data_dir("somewhere")
    assert Settings.from_env(settings.to_env()) == settings


def test_an_operator_sets_the_banked_timers_and_the_batch_in_the_environment():
    settings = Settings.from_env(
        {
            "BACCARAT_BANKED_PLAYER_S": "50",
            "BACCARAT_BANKED_BANKER_S": "30",
            "BACCARAT_BANKED_RECONNECT_GRACE": "0",
            "BACCARAT_MAX_BATCH": "4",
        }
    )
    assert settings.banked == BankedSettings(player_s=50, banker_s=30, reconnect_grace=0)
    assert settings.max_batch == 4


def test_argon2_is_rfc_9106s_second_option_unless_the_operator_tunes_it():
    assert Settings.from_env({}).passwords == PasswordHashing(3, 65536, 4)
    tuned = Settings.from_env({"BACCARAT_ARGON2_TIME_COST": "2",
                               "BACCARAT_ARGON2_MEMORY_KIB": "19456",
                               "BACCARAT_ARGON2_PARALLELISM": "1"})  # fmt: skip
    assert tuned.passwords == PasswordHashing(2, 19456, 1)
    for name, value, says in (("TIME_COST", "0", "1 pass"), ("PARALLELISM", "x", "whole"),
                              ("MEMORY_KIB", "16", "32 KiB for 4")):  # fmt: skip
        with pytest.raises(ValueError, match=says):
            Settings.from_env({f"BACCARAT_ARGON2_{name}": value})


def test_serve_refuses_a_setting_it_cannot_read_with_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setenv("BACCARAT_ARGON2_MEMORY_KIB", "lots")
    assert cli(["serve", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "BACCARAT_ARGON2_MEMORY_KIB must be a whole number, not 'lots'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
