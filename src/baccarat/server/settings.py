"""Server settings: one frozen value built from arguments or the environment, nothing global."""

from __future__ import annotations

import json
import os
import time
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baccarat.fairness.beacon import QUICKNET
from baccarat.server.db.url import DatabaseUrl as DatabaseUrl  # the settings' own

if TYPE_CHECKING:
    from baccarat.server.dealing import LightningSource, ShoeFactory

ENV_PREFIX = "BACCARAT_"
# The whole settings of a server, as JSON, for its worker processes.
SETTINGS_VARIABLE = ENV_PREFIX + "SETTINGS"
DEFAULT_DATA_DIR = "data"


def system_clock_us() -> int:
    """Microseconds since the Unix epoch, UTC."""
    return time.time_ns() // 1000


@dataclass(frozen=True)
class PasswordHashing:
    """Argon2id parameters: argon2-cffi's defaults (RFC 9106's second recommended option:
    3 passes over 64 MiB, 4 lanes), which an operator may tune to the machine
    (``BACCARAT_ARGON2_*``; the test suite's servers use the cheapest)."""

    time_cost: int = 3
    memory_cost: int = 65536  # KiB
    parallelism: int = 4

    def __post_init__(self) -> None:
        if self.time_cost < 1 or self.parallelism < 1:
            raise ValueError("argon2 needs at least 1 pass and 1 lane")
        if self.memory_cost < 8 * self.parallelism:
            raise ValueError(f"argon2 needs at least 8 KiB of memory a lane "
                             f"({8 * self.parallelism} KiB for {self.parallelism})")  # fmt: skip


@dataclass(frozen=True)
class LoginThrottle:
    """Exponential backoff of failed logins, per (nickname, client address), per client
    address and per account from every address but the owner's; and registrations per
    client address."""

    free_failures: int = 3
    base_delay_s: float = 1.0
    max_delay_s: float = 900.0
    # An account's failed logins from anywhere but the owner's recent addresses (those of
    # its successful logins in the last ``home_days``): this many free within
    # ``account_window_s`` of the last one, then the same backoff (auth.admit_attempt).
    account_free_failures: int = 10
    account_window_s: int = 24 * 3600
    home_days: int = 30
    # Registrations per client address per hour.
    registrations_per_hour: int = 20


@dataclass(frozen=True)
class Limits:
    """What one client may cost the server (docs/server.md, "Security")."""

    # Request bodies (Content-Length or chunked) and the time they may take to arrive.
    max_body: int = 64 * 1024
    body_timeout_s: float = 10.0
    # A request head (request line and headers): its size, and the seconds a connection may
    # take to send it (also how long an idle keep-alive connection stays open).
    max_head: int = 16 * 1024
    head_timeout_s: int = 5
    # Connections per worker, HTTP and WebSocket alike, idle or not (counted from the first
    # moment: docs/server.md, "What a worker holds"). When the worker is full, a new
    # connection takes the place of an anonymous one with no request in flight, the
    # longest idle of the address that holds the most of them; with none, or when its own
    # address would then hold as many, it is answered 503 ``server_busy`` and closed.
    max_connections: int = 1000
    # The share of them (percent) that anonymous connections (on which no request carried a
    # live session yet) may hold together: the rest is kept for players who logged in.
    anonymous_percent: int = 50
    # Reads (GET and HEAD) of the API and its documents on anonymous connections, per client
    # address (an IPv6 client: its /64) per second, and the burst (429 ``rate_limited``).
    anonymous_reads_per_s: float = 20.0
    anonymous_reads_burst: int = 60
    # Connections (HTTP and WebSocket) one client address may hold open in a worker (an
    # IPv6 client: its /64); more are refused at once (503 ``too_many_connections``). A
    # tenth of the worker's connections: an address shared by many players (a NAT) still
    # fits, one client cannot crowd the others out. 0: no limit. Not applied to the
    # trusted proxies below: a proxy limits its own clients (docs/deploy.md).
    connections_per_address: int = 100
    # The proxies whose X-Forwarded-For (and X-Forwarded-Proto) the server believes:
    # addresses or networks (``10.0.0.5``, ``10.0.0.0/24``). None by default: a client's
    # address is the address it connects from, whatever headers it sends.
    forwarded_allow_ips: tuple[str, ...] = ()
    # WebSocket messages (bytes, JSON nesting) and sockets per account per worker.
    ws_max_message: int = 8 * 1024
    ws_max_depth: int = 8
    ws_per_account: int = 8
    # Messages one socket may send per second, and the burst (close 1008 past them).
    ws_messages_per_s: float = 10.0
    ws_messages_burst: int = 30
    # Argon2 hashes at once, and how long a request waits for a turn before a 429.
    hashes_at_once: int = 2
    hash_wait_s: float = 5.0


def parse_forwarded_allow_ips(text: str) -> tuple[str, ...]:
    """Comma-separated proxy addresses or networks, each checked (``ValueError`` names the
    first that is neither); empty text is no proxy."""
    import ipaddress

    if not text.strip():
        return ()
    found = []
    for item in text.split(","):
        entry = item.strip()
        try:
            parse = ipaddress.ip_network if "/" in entry else ipaddress.ip_address
            found.append(str(parse(entry)))
        except ValueError:
            raise ValueError(
                f"{entry[:60]!r} is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/24)"
            ) from None
    return tuple(found)


@dataclass(frozen=True)
class BankedSettings:
    """Player-banked tables: the decision times (SPEC §7), how long a participant whose
    last socket closed may reconnect before leaving (0: they leave at once), and how often
    a worker looks for deadlines that have passed."""

    player_s: int = 45
    banker_s: int = 35
    reconnect_grace: int = 10
    # One participant waiting alone for a partner leaves after this (the seat is freed).
    waiting_s: int = 300
    poll_s: float = 0.5
    # PostgreSQL: a worker whose session is missing is dead once it stays missing this long
    # (longer than a live worker takes to reconnect after PostgreSQL restarts).
    worker_gone_s: float = 5.0


@dataclass(frozen=True)
class Settings:
    database: DatabaseUrl
    data_dir: Path = Path(DEFAULT_DATA_DIR)
    tables_file: Path | None = None
    session_ttl_s: int = 7 * 24 * 3600
    cookie_secure: bool = False
    passwords: PasswordHashing = PasswordHashing()
    login_throttle: LoginThrottle = LoginThrottle()
    # Threads that run database work (SQLite always has exactly one writer). PostgreSQL: 4
    # writers a worker, not 8: fewer units of work alone in their batch, whose writes then
    # ride with the next unit's round trip (bench/databases.py: player-banked +5% to +21%,
    # house rounds the same, four pairs on 2026-12-02); and 9 connections a worker, not 17.
    db_threads: int = 4
    # SQLite group commit: how many rounds at most share one fsync.
    max_batch: int = 32
    # Serve POST /api/bench/commit, the bare transaction the benchmark compares with.
    bench_endpoint: bool = False
    web_dir: Path | None = None
    migrate_on_start: bool = True
    banked: BankedSettings = BankedSettings()
    limits: Limits = Limits()
    # The keys (docs/fairness.md, "Keys"): the Ed25519 signing key (PEM or base64 of its 32
    # bytes), the public keys of retired signing keys (still published: old records verify),
    # and the AES-256 key of the server seeds at rest (base64 of 32 bytes). Without them,
    # keys are made once and kept in ``data_dir/keys``.
    signing_key: str | None = field(default=None, repr=False)
    retired_public_keys: tuple[str, ...] = ()
    seed_key: str | None = field(default=None, repr=False)
    # Operators (docs/operator-api.md): their file, how often the worker looks for rounds
    # to resume, and the longest wait between two attempts of a call.
    operators_file: Path | None = None
    operator_poll_s: float = 0.5
    operator_max_backoff_s: float = 30.0
    # The shared tables' public randomness beacon (docs/fairness.md, "Shared tables"): a
    # drand HTTP endpoint, the chain's hash (quicknet by default) and its public key (None:
    # the known chain's). Without a URL (the default) the tables deal offline, from the
    # committed seed alone.
    beacon_url: str | None = None
    beacon_chain: str = QUICKNET.hash
    beacon_public_key: str | None = None
    # The operator's token for ``GET /metrics`` (``Authorization: Bearer``; docs/operations.md).
    # None (the default): the metrics are not served.
    metrics_token: str | None = field(default=None, repr=False)
    # The jurisdiction profile the deployment plays (docs/jurisdictions.md), and a file of
    # profiles of its own besides the package's.
    profile: str = "default"
    profiles_file: Path | None = None
    # Injected for tests: the deal source, the multiplier cards' source and the clock
    # (microseconds since the epoch).
    shoe_factory: ShoeFactory | None = field(default=None, compare=False)
    lightning_source: LightningSource | None = field(default=None, compare=False)
    clock: Callable[[], int] = field(default=system_clock_us, compare=False)

    @classmethod
    def for_data_dir(cls, data_dir: Path | str | None = None, **kwargs: object) -> Settings:
        folder = Path(data_dir or DEFAULT_DATA_DIR)
        return cls(database=DatabaseUrl.sqlite_in(folder), data_dir=folder, **kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from BACCARAT_* variables: the whole of them from BACCARAT_SETTINGS (how
        `baccarat serve` passes them to its workers), else from the operator's variables."""
        env = os.environ if environ is None else environ
        whole = env.get(SETTINGS_VARIABLE)
        if whole:
            settings: Settings = _decode(cls, json.loads(whole))
            return settings

        def get(name: str) -> str | None:
            value = env.get(ENV_PREFIX + name)
            return value if value else None

        data_dir = Path(get("DATA_DIR") or DEFAULT_DATA_DIR)
        url = get("DATABASE_URL")
        database = DatabaseUrl.parse(url) if url else DatabaseUrl.sqlite_in(data_dir)
        tables = get("TABLES")
        operators = get("OPERATORS")
        profiles = get("PROFILES")
        web = get("WEB_DIR")
        defaults = BankedSettings()
        banked = BankedSettings(
            player_s=int(get("BANKED_PLAYER_S") or defaults.player_s),
            banker_s=int(get("BANKED_BANKER_S") or defaults.banker_s),
            reconnect_grace=int(get("BANKED_RECONNECT_GRACE") or defaults.reconnect_grace),
            poll_s=float(get("BANKED_POLL_S") or defaults.poll_s),
            worker_gone_s=float(get("BANKED_WORKER_GONE_S") or defaults.worker_gone_s),
        )
        retired = get("RETIRED_PUBLIC_KEYS") or ""

        def count(name: str, default: int) -> int:
            text = get(name) or str(default)
            if not (text.isascii() and text.isdigit()):
                raise ValueError(f"{ENV_PREFIX}{name} must be a whole number, not {text[:40]!r}")
            return int(text)

        passwords = PasswordHashing(
            time_cost=count("ARGON2_TIME_COST", PasswordHashing.time_cost),
            memory_cost=count("ARGON2_MEMORY_KIB", PasswordHashing.memory_cost),
            parallelism=count("ARGON2_PARALLELISM", PasswordHashing.parallelism),
        )
        return cls(
            database=database,
            data_dir=data_dir,
            signing_key=get("SIGNING_KEY"),
            retired_public_keys=tuple(k.strip() for k in retired.split(",") if k.strip()),
            seed_key=get("SEED_KEY"),
            tables_file=Path(tables) if tables else None,
            operators_file=Path(operators) if operators else None,
            profile=get("PROFILE") or cls.profile,
            profiles_file=Path(profiles) if profiles else None,
            operator_poll_s=float(get("OPERATOR_POLL_S") or cls.operator_poll_s),
            operator_max_backoff_s=float(
                get("OPERATOR_MAX_BACKOFF_S") or cls.operator_max_backoff_s
            ),
            beacon_url=get("BEACON_URL"),
            beacon_chain=get("BEACON_CHAIN") or QUICKNET.hash,
            beacon_public_key=get("BEACON_PUBLIC_KEY"),
            metrics_token=get("METRICS_TOKEN"),
            session_ttl_s=int(get("SESSION_TTL") or 7 * 24 * 3600),
            cookie_secure=(get("COOKIE_SECURE") or "0") == "1",
            db_threads=int(get("DB_THREADS") or cls.db_threads),
            max_batch=int(get("MAX_BATCH") or 32),
            bench_endpoint=(get("BENCH") or "0") == "1",
            web_dir=Path(web) if web else None,
            banked=banked,
            passwords=passwords,
            login_throttle=LoginThrottle(
                registrations_per_hour=int(
                    get("REGISTRATIONS_PER_HOUR") or LoginThrottle.registrations_per_hour
                )
            ),
            limits=Limits(
                head_timeout_s=int(get("HEAD_TIMEOUT") or Limits.head_timeout_s),
                max_connections=int(get("MAX_CONNECTIONS") or Limits.max_connections),
                connections_per_address=int(
                    get("CONNECTIONS_PER_ADDRESS") or Limits.connections_per_address
                ),
                anonymous_percent=int(get("ANONYMOUS_PERCENT") or Limits.anonymous_percent),
                anonymous_reads_per_s=float(
                    get("ANONYMOUS_READS_PER_S") or Limits.anonymous_reads_per_s
                ),
                anonymous_reads_burst=int(
                    get("ANONYMOUS_READS_BURST") or Limits.anonymous_reads_burst
                ),
                forwarded_allow_ips=parse_forwarded_allow_ips(get("FORWARDED_ALLOW_IPS") or ""),
            ),
        )

    def to_env(self) -> dict[str, str]:
        """The variable that makes ``from_env`` rebuild these settings in a worker process:
        every field but the injected ones (a new field reaches the workers by itself)."""
        return {SETTINGS_VARIABLE: json.dumps(_encode(self), separators=(",", ":"))}


def _encode(value: Any) -> Any:
    """A settings value as JSON data; the injected fields (compare=False) are left out."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in fields(value) if f.compare}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


def _decode(kind: Any, data: Any) -> Any:
    """The inverse of ``_encode`` for a field of type ``kind``."""
    if data is None:
        return None
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        kind = next(k for k in typing.get_args(kind) if k is not type(None))
    if isinstance(kind, type) and is_dataclass(kind):
        # The injected fields' types are imported for type checking only.
        hints = typing.get_type_hints(kind, localns={"ShoeFactory": Any, "LightningSource": Any})
        known = {f.name for f in fields(kind) if f.compare}
        return kind(**{k: _decode(hints[k], v) for k, v in data.items() if k in known})
    if kind is Path:
        return Path(data)
    if typing.get_origin(kind) is tuple:
        (item, *_) = typing.get_args(kind)
        return tuple(_decode(item, v) for v in data)
    return data
