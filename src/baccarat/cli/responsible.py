"""``baccarat admin responsible NICKNAME``: a player's limits, usage, exclusion and audit log.

It only reads, on the database opened read-only: an operator can neither lift an exclusion
nor raise a limit. When the player's settings have something to settle first (no settings
yet, a pending change whose time has come, a new session), they are shown as the player's
next read will make them, in a transaction that is rolled back: nothing is kept.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from baccarat.cli.output import print_json, table

if TYPE_CHECKING:
    from baccarat.server.db.uow import UnitOfWork


def run_responsible(args: argparse.Namespace) -> int:
    from baccarat.cli import inputs
    from baccarat.cli.database import _read, _rolled_back
    from baccarat.server import accounts, ledger, responsible
    from baccarat.server.currencies import format_amount

    nickname = inputs.nickname(args.nickname)
    entries = inputs.whole(args.audit, "--audit", 0, 1000)

    def peek(uow: UnitOfWork) -> dict[str, Any] | None:
        player = accounts.require(uow, nickname)
        shown = responsible.peek(uow, player.id)
        if shown is None:
            return None
        return shown | more(uow, player.id)

    def settled(uow: UnitOfWork) -> dict[str, Any]:
        player = accounts.require(uow, nickname)
        return responsible.overview(uow, player.id) | more(uow, player.id)

    def more(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
        """The audit log, and the currency the amounts are in (minor units of it)."""
        return {
            "audit": responsible.audit_log(uow, player_id, entries),
            "currency": ledger.currency_of(uow, player_id),
        }

    state = _read(args, peek)
    if state is None:
        state = _rolled_back(args, settled)
    if args.json:
        print_json(state)
        return 0
    exclusion = state["exclusion"]

    def money(minor: int | None) -> str:
        return "-" if minor is None else format_amount(minor, state["currency"])

    print(
        f"player {nickname}: "
        + (
            "no exclusion"
            if exclusion is None
            else f"{exclusion['kind'].replace('_', '-')} until {exclusion['until']}"
        )
    )
    limits, usage = state["limits"], state["usage"]
    rows = []
    for kind in ("deposit", "loss", "wager"):
        for period in ("day", "week", "month"):
            rows.append(
                (
                    kind,
                    period,
                    money(limits[kind][period]),
                    money(usage[period][kind]),
                    usage[period]["resets"],
                )
            )
    print(table(("limit", "period", "limit", "used", "resets"), rows))
    session = state["session"]
    print(
        f"session limit: {session['limit_minutes'] or '-'} minutes; session started "
        f"{session['started']}, {session['rounds']} rounds, net {money(session['net'])}"
    )
    print(
        f"reality check every {state['reality_check']['minutes']} minutes"
        + (" (due)" if state["reality_check"]["due"] else "")
    )
    for change in state["pending"]:
        print(f"pending: {change['limit']} -> {money(change['amount'])} from {change['applies']}")
    if state["audit"]:
        print(
            table(
                ("time", "action", "details"),
                [
                    (e["time"], e["action"], " ".join(f"{k}={v}" for k, v in e["details"].items()))
                    for e in state["audit"]
                ],
            )
        )
    return 0
