"""The operators file (TOML, ``[[operator]]`` entries); secrets come from the environment."""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baccarat.server.currencies import known as known_currencies
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import find_kind
from baccarat.server.wallets.operator import signing
from baccarat.server.wallets.operator.contract import WalletProtocol
from baccarat.server.wallets.operator.protocols import CONTRACTS, DEFAULT

if TYPE_CHECKING:
    from baccarat.server.profiles import ProfileSet
    from baccarat.server.tables import TableSet

_ID = re.compile(r"^[a-z0-9_-]{1,32}$")
_CURRENCY = re.compile(r"^[A-Z]{3}$")
MIN_SECRET = 16
DEFAULT_TIMEOUT_S = 5.0


class OperatorConfigError(ValueError):
    """The operators file cannot be used (the message says why)."""


@dataclass(frozen=True, slots=True)
class Operator:
    id: str
    secret: str
    wallet_url: str
    currencies: tuple[str, ...]
    tables: tuple[str, ...] | None  # None: every table not player-banked
    timeout_s: float = DEFAULT_TIMEOUT_S
    # The wallet contract its wallet speaks (``protocol``; none named: API v1).
    contract: WalletProtocol = CONTRACTS[DEFAULT]
    # The market of its launches that name none (``market``; None: the deployment's profile).
    market: str | None = None

    def __repr__(self) -> str:  # the secret stays out of logs and tracebacks
        return f"Operator(id={self.id!r}, wallet_url={self.wallet_url!r})"

    def offers(self, table_id: str) -> bool:
        return self.tables is None or table_id in self.tables

    def signs(self, message: bytes, signature: str | None) -> bool:
        """Whether a request to the game (a launch, a report) is signed by this operator:
        the game's own API, signed alike whatever contract its wallet speaks."""
        return signing.matches(self.secret, message, signature)


class Operators(Mapping[str, Operator]):
    """The configured operators by id (none: the operator API refuses every request)."""

    def __init__(self, operators: list[Operator] | None = None) -> None:
        self._by_id = {o.id: o for o in operators or []}

    def __getitem__(self, operator_id: str) -> Operator:
        return self._by_id[operator_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def verified(self, operator_id: str | None, message: bytes, signature: str | None) -> Operator:
        """The operator that signed this message, or 401 ``invalid_signature``."""
        operator = self._by_id.get(operator_id or "")
        # An unknown operator is refused like a bad signature (nothing tells them apart).
        if operator is None or not operator.signs(message, signature):
            raise ServiceError(
                "invalid_signature",
                "the X-Signature header is not the HMAC-SHA256 of the body with this "
                "operator's secret",
            )
        return operator


def load_operators(path: Path | str | None, environ: Mapping[str, str] | None = None) -> Operators:
    """The operators of a TOML file (none without a file)."""
    if path is None:
        return Operators()
    env = os.environ if environ is None else environ
    try:
        raw = tomllib.loads(Path(path).read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise OperatorConfigError(f"the operators file cannot be read: {error}") from None
    entries = raw.get("operator")
    if not isinstance(entries, list) or not entries:
        raise OperatorConfigError("the operators file has no [[operator]] entries")
    operators = [_operator(entry, i, env) for i, entry in enumerate(entries)]
    if len({o.id for o in operators}) != len(operators):
        raise OperatorConfigError("two operators have the same id")
    return Operators(operators)


def _operator(entry: Any, index: int, env: Mapping[str, str]) -> Operator:
    where = f"operator {index + 1}"
    if not isinstance(entry, dict):
        raise OperatorConfigError(f"{where} is not a table")
    known = {"id", "secret_env", "wallet_url", "currencies", "tables", "timeout_s", "protocol",
             "market"}  # fmt: skip
    unknown = sorted(set(entry) - known)
    if unknown:
        raise OperatorConfigError(f"{where}: unknown keys {', '.join(unknown)}")
    operator_id = entry.get("id")
    if not isinstance(operator_id, str) or not _ID.match(operator_id):
        raise OperatorConfigError(f"{where}: id is 1-32 of a-z, 0-9, '_' and '-'")
    where = f"operator {operator_id!r}"
    secret_env = entry.get("secret_env")
    if not isinstance(secret_env, str) or not secret_env:
        raise OperatorConfigError(f"{where}: secret_env names the variable of the secret")
    secret = env.get(secret_env, "")
    if len(secret) < MIN_SECRET:
        raise OperatorConfigError(
            f"{where}: the variable {secret_env} must hold a secret of {MIN_SECRET} "
            "characters or more"
        )
    url = entry.get("wallet_url")
    if not isinstance(url, str) or not re.match(r"^https?://[^\s]+$", url):
        raise OperatorConfigError(f"{where}: wallet_url is an http:// or https:// URL")
    currencies = entry.get("currencies")
    if (
        not isinstance(currencies, list)
        or not currencies
        or not all(isinstance(c, str) and _CURRENCY.match(c) for c in currencies)
    ):
        raise OperatorConfigError(f'{where}: currencies is a list of ISO 4217 codes ("EUR")')
    unknown_codes = [c for c in currencies if c not in known_currencies()]
    if unknown_codes:
        raise OperatorConfigError(f"{where}: not ISO 4217 currencies: {', '.join(unknown_codes)}")
    tables = entry.get("tables")
    if tables is not None and (
        not isinstance(tables, list) or not all(isinstance(t, str) for t in tables)
    ):
        raise OperatorConfigError(f"{where}: tables is a list of table ids")
    timeout = entry.get("timeout_s", DEFAULT_TIMEOUT_S)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or not 0 < timeout <= 60
    ):
        raise OperatorConfigError(f"{where}: timeout_s is a number of seconds, above 0, at most 60")
    protocol = entry.get("protocol", DEFAULT)
    if not isinstance(protocol, str) or protocol not in CONTRACTS:
        raise OperatorConfigError(
            f"{where}: protocol is one of {', '.join(map(repr, CONTRACTS))}, not {protocol!r}"
        )
    market = entry.get("market")  # a profile's name (``check_operator_markets``)
    if market is not None and not isinstance(market, str):
        raise OperatorConfigError(f'{where}: market is the name of a profile ("GB", "ON")')
    return Operator(
        operator_id, secret, url.rstrip("/"), tuple(currencies),
        None if tables is None else tuple(tables), float(timeout), CONTRACTS[protocol], market,
    )  # fmt: skip


def check_operator_tables(operators: Operators, tables: TableSet) -> None:
    """Every table an operator lists exists and plays on any wallet (not player-banked)."""
    for operator in operators.values():
        for table_id in operator.tables or ():
            table = tables.get(table_id)
            if table is None:
                raise OperatorConfigError(f"operator {operator.id!r}: no table {table_id!r}")
            if not find_kind(table.kind).any_wallet:
                raise OperatorConfigError(
                    f"operator {operator.id!r}: table {table_id!r} is player-banked: it plays "
                    "on the casino's own wallet only"
                )


def check_operator_markets(operators: Operators, profiles: ProfileSet) -> None:
    """Every operator's default ``market`` is a profile the server knows."""
    for operator in operators.values():
        if operator.market is not None and operator.market not in profiles:
            raise OperatorConfigError(
                f"operator {operator.id!r}: market is one of {', '.join(profiles)}, "
                f"not {operator.market!r}"
            )
