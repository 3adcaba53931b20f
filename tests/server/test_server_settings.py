"""Settings reach every worker whole: ``from_env(to_env(s)) == s``."""

from __future__ import annotations

from pathlib import Path

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
