"""The wallet contracts by the name the operators file gives them (``protocol``): one line
each. A round on an operator's wallet keeps its contract's name, and is finished and read in
it whatever the file says later."""

from __future__ import annotations

from baccarat.server.wallets.operator.actions import ACTIONS
from baccarat.server.wallets.operator.api_v1 import API_V1
from baccarat.server.wallets.operator.contract import WalletProtocol

CONTRACTS: dict[str, WalletProtocol] = {
    API_V1.name: API_V1,
    ACTIONS.name: ACTIONS,
}
DEFAULT = API_V1.name


def contract(name: str) -> WalletProtocol:
    """The contract of that name (a round's, as recorded: one the registry has)."""
    return CONTRACTS[name]


def refusals() -> list[str]:
    """Every contract's statuses of a refused bet (the player's page has words for each)."""
    return [status for c in CONTRACTS.values() for status in c.refusals]
