"""Jurisdiction profiles: what the game allows and shows in a market (docs/jurisdictions.md).

A profile is data: a named policy read from ``profiles.toml`` (and from a deployment's own
file, ``Settings.profiles_file``), checked as it is read. A deployment plays one of them
(``Settings.profile``); an operator's launch may name another for its session (its
``market``). The server enforces each rule where it applies (``rules``: the least time
between two house rounds; the routes of the features a profile switches off), and the page
reads the profile in force from ``GET /api/session`` and hides what it switches off.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

from baccarat.server.errors import ServiceError

DEFAULT = "default"
# What a profile may ask the felt to show at all times.
SCREEN_ITEMS = ("net_position", "session_time")
# The most a profile may ask for (a bound on a typing error in a deployment's file).
MOST = {
    "autoplay_rounds": 1000,
    "min_cycle_ms": 60_000,
    "tables_at_once": 4,
    "history_months": 120,
    "recall_rounds": 100,
    "inactivity_timeout_s": 86_400,
}


class ProfileError(ValueError):
    """A profiles file that is not a set of valid profiles (the server does not start)."""


@dataclass(frozen=True, slots=True)
class Profile:
    """One market's policy (the keys of ``profiles.toml``)."""

    name: str
    title: str
    autoplay_rounds: int
    autoplay_alert: bool
    fast_reveal: bool
    min_cycle_ms: int
    tables_at_once: int
    celebrate_at_most_stake: bool
    screen: tuple[str, ...]
    history_months: int
    rg_before_first_wager: bool
    recall_rounds: int
    favourites: bool
    latency_meter: bool
    inactivity_timeout_s: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"screen": list(self.screen)}


_KEYS = tuple(f.name for f in fields(Profile) if f.name != "name")


def _read(name: str, entry: Any, where: str) -> Profile:
    """One profile from its TOML table, every key checked."""
    if not isinstance(entry, dict):
        raise ProfileError(f"{where}: [profile.{name}] is a table of keys")
    unknown = sorted(set(entry) - set(_KEYS))
    missing = [key for key in _KEYS if key not in entry]
    if unknown or missing:
        raise ProfileError(f"{where}: profile {name}: "
                           + "; ".join([*(f"unknown key {k}" for k in unknown),
                                        *(f"{k} is missing" for k in missing)]))  # fmt: skip
    values: dict[str, Any] = {}
    for field in fields(Profile):
        if field.name == "name":
            continue
        value = entry[field.name]
        wrong = f"{where}: profile {name}: {field.name}"
        if field.type == "bool":
            if not isinstance(value, bool):
                raise ProfileError(f"{wrong} is true or false")
        elif field.type == "int":
            top = MOST[field.name]
            low = 1 if field.name in ("tables_at_once", "recall_rounds") else 0
            if type(value) is not int or not low <= value <= top:
                raise ProfileError(f"{wrong} is a whole number from {low} to {top}")
        elif field.type == "str":
            if not isinstance(value, str) or not 1 <= len(value) <= 200:
                raise ProfileError(f"{wrong} is a text of 1 to 200 characters")
        else:
            bad = [v for v in value if v not in SCREEN_ITEMS] if isinstance(value, list) else [0]
            if bad:
                raise ProfileError(f"{wrong} is a list of {', '.join(SCREEN_ITEMS)}")
            value = tuple(value)
        values[field.name] = value
    return Profile(name=name, **values)


def _profiles(text: str, where: str) -> dict[str, Profile]:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"{where} is not valid TOML: {error}") from None
    unknown = sorted(set(raw) - {"profile"})
    entries = raw.get("profile")
    if unknown or not isinstance(entries, dict):
        raise ProfileError(f"{where} holds [profile.NAME] tables alone")
    for name in entries:
        if name != DEFAULT and not (len(name) == 2 and name.isascii() and name.isupper()):
            raise ProfileError(
                f"{where}: a profile is named by its market's two capital letters "
                f"(ISO 3166: GB, MT) or {DEFAULT!r}, not {name!r}"
            )
    return {name: _read(name, entry, where) for name, entry in entries.items()}


class ProfileSet(Mapping[str, Profile]):
    """The profiles a server knows, by name, and the one its deployment plays."""

    def __init__(self, profiles: Mapping[str, Profile], deployment: str = DEFAULT):
        if deployment not in profiles:
            raise ProfileError(
                f"the deployment's profile {deployment!r} is none of {', '.join(profiles)}"
            )
        self._profiles = dict(profiles)
        self.deployment = profiles[deployment]

    def __getitem__(self, name: str) -> Profile:
        return self._profiles[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._profiles)

    def __len__(self) -> int:
        return len(self._profiles)

    def of_market(self, market: str | None) -> Profile:
        """The profile of a session's market (None: the deployment's)."""
        return self.deployment if market is None else self._profiles.get(market, self.deployment)

    def require_market(self, market: object) -> str | None:
        """A launch's ``market`` checked: None (the deployment's profile) or a known name."""
        if market is None:
            return None
        if not isinstance(market, str) or market not in self._profiles:
            raise ServiceError(
                "unknown_market", f"market is one of {', '.join(self._profiles)}",
                field="market", markets=list(self._profiles),
            )  # fmt: skip
        return market


def load(path: Path | None = None, deployment: str = DEFAULT) -> ProfileSet:
    """The package's profiles, with those of ``path`` added (or replacing theirs)."""
    builtin = resources.files(__name__).joinpath("profiles.toml").read_text("utf-8")
    profiles = _profiles(builtin, "profiles.toml")
    if path is not None:
        try:
            text = Path(path).read_text("utf-8")
        except OSError as error:
            raise ProfileError(f"the profiles file {path} cannot be read: {error}") from None
        profiles |= _profiles(text, str(path))
    return ProfileSet(profiles, deployment)
