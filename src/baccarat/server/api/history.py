"""History: the player's rounds, one round, and the verifiable export."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Hashable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from fastapi.responses import StreamingResponse

from baccarat.server import accounts, history, ledger
from baccarat.server.api import pacing
from baccarat.server.api.deps import RequestDep, json_response
from baccarat.server.api.errors import documented
from baccarat.server.api.models import HistoryOut, Mode, RoundOut
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import RateLimited

router = APIRouter(prefix="/api", tags=["history"])
EXPORT_RETRY_S = 5
EXPORT_STALL_S = 60.0
EXPORT_REST = 7.0


@router.get(
    "/history",
    response_model=HistoryOut,
    responses=documented("not_authenticated", "invalid_mode", "invalid_cursor", "rate_limited"),
    summary="Your rounds, newest first (optionally one table's); pass `next` as `before` "
    "for the following page",
)
async def get_history(
    ctx: RequestDep,
    mode: Annotated[Mode | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    before: Annotated[str | None, Query(max_length=64)] = None,
    table: Annotated[str | None, Query(max_length=64, description="only this table's")] = None,
) -> Response:
    rate = pacing.before_reading(ctx.request.app, ctx.caller.token_hash)

    def read(uow: UnitOfWork) -> dict[str, Any]:
        player = ctx.caller.player_id(uow)
        rate.take(player)
        records, following = history.page(uow, player, mode, limit, before, table)
        return {"items": [r.to_json() for r in records], "next": following,
                "currency": ledger.currency_of(uow, player)}  # fmt: skip

    return json_response(await ctx.casino.db.read(read))


@router.get(
    "/rounds/{round_id}",
    response_model=RoundOut,
    responses=documented("not_authenticated", "unknown_round"),
    summary="One of your rounds",
)
async def get_round(round_id: str, ctx: RequestDep) -> Response:
    record = await ctx.casino.db.read(
        lambda uow: history.get_round(uow, ctx.caller.player_id(uow), round_id)
    )
    return json_response(record.to_json())


@router.get(
    "/history/export",
    responses={
        200: {
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            "description": "`baccarat-history/1`: one JSON round per line, oldest first "
            "(docs/history-format.md); `baccarat verify FILE` checks it",
        },
        **documented("not_authenticated", "invalid_mode", "rate_limited"),
    },
    response_class=StreamingResponse,
    summary="Export your history as JSON lines for `baccarat verify` (one at a time)",
)
async def export(
    ctx: RequestDep, mode: Annotated[Mode | None, Query()] = None
) -> StreamingResponse:
    # One export at a time per account (in this worker): a long history costs its owner
    # one stream, never several at once against everyone else's rounds. (An entry counts
    # while its stream last moved less than EXPORT_STALL_S ago, so a stream that never
    # started cannot block its owner for good.) The session is checked first, before any
    # query: asking again while one's own export runs costs nothing.
    state = ctx.request.app.state
    if getattr(state, "exporting", None) is None:
        state.exporting = {}
    exporting: dict[Hashable, float] = state.exporting

    def refuse_if_running(key: Hashable) -> None:
        if time.monotonic() - exporting.get(key, -EXPORT_STALL_S) < EXPORT_STALL_S:
            raise RateLimited("an export of yours is still running", retry_after_s=EXPORT_RETRY_S)

    session = ("session", ctx.caller.token_hash)
    refuse_if_running(session)
    player = await ctx.casino.db.read(lambda uow: accounts.get(uow, ctx.caller.player_id(uow)))
    refuse_if_running(player.id)
    exporting[player.id] = exporting[session] = time.monotonic()

    async def lines() -> AsyncIterator[str]:
        # Page by page (EXPORT_PAGE rounds), each read and serialised on a database thread:
        # memory stays at one page however long the history, and the event loop stays free.
        # Paced: after each page the stream rests EXPORT_REST times as long as the page took,
        # so that a long export takes at most a quarter of the server's time (its CPU-bound
        # serialisation holds the GIL that the event loop and the writer need too).
        try:
            after: int | None = 0
            while after is not None:
                started = time.monotonic()
                text, after = await ctx.casino.db.read(
                    lambda uow, a=after: history.export_chunk(  # type: ignore[misc]
                        uow, player.id, mode, a, ctx.casino.signer
                    ),
                    heavy=True,
                )
                exporting[player.id] = exporting[session] = time.monotonic()
                if text:
                    yield text
                if after is not None:
                    await asyncio.sleep((time.monotonic() - started) * EXPORT_REST)
        finally:
            exporting.pop(player.id, None)
            exporting.pop(session, None)

    name = f"baccarat-history-{player.nickname}{'-' + mode if mode else ''}.jsonl"
    return StreamingResponse(
        lines(),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
