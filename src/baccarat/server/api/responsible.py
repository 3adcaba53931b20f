"""Responsible gaming: the player's limits, reality checks, time-out and self-exclusion."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Response
from pydantic import BaseModel, Field, StrictInt

from baccarat.server import responsible
from baccarat.server.api.deps import RequestContext, RequestDep, banked_desk, json_response
from baccarat.server.api.errors import Handler, documented, routes
from baccarat.server.api.models import Body
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.kinds.banked import service
from baccarat.server.kinds.banked.service import SeatServices

router = APIRouter(prefix="/api/responsible", tags=["responsible gaming"])
WRITE_ERRORS = ("invalid_body", "not_authenticated", "csrf_failed")

Limit = StrictInt | None


class PeriodLimitsIn(Body):
    day: Limit = Field(default=None, description="cents, or null for no limit")
    week: Limit = Field(default=None, description="cents, or null for no limit")
    month: Limit = Field(default=None, description="cents, or null for no limit")


class LimitsIn(Body):
    """Keys left out stay as they are; null removes a limit (after 24 hours)."""

    deposit: PeriodLimitsIn | None = None
    loss: PeriodLimitsIn | None = None
    wager: PeriodLimitsIn | None = None
    session_minutes: Limit = Field(default=None, description="minutes, or null for none")


class RealityCheckIn(Body):
    minutes: StrictInt = Field(description="1 to 1440: how often the reality check comes")


class TimeOutIn(Body):
    days: StrictInt = Field(description="1, 7 or 30")


class SelfExclusionIn(Body):
    months: StrictInt = Field(description="6, 12 or 60")


class PeriodLimitsOut(BaseModel):
    day: int | None
    week: int | None
    month: int | None


class LimitsOut(BaseModel):
    deposit: PeriodLimitsOut
    loss: PeriodLimitsOut
    wager: PeriodLimitsOut
    session_minutes: int | None


class PendingOut(BaseModel):
    limit: str = Field(description="deposit_day ... wager_month, or session_minutes")
    kind: str
    period: str | None
    amount: int | None = Field(description="the new limit (null: none) once it applies")
    applies: str


class UsageOut(BaseModel):
    start: str
    resets: str
    deposit: int = Field(description="cents requested (rejected requests do not count)")
    loss: int = Field(description="cents: stakes minus returns (negative when ahead)")
    wager: int = Field(description="cents staked")


class RealityCheckOut(BaseModel):
    minutes: int
    due: bool
    next: str


class SessionOut(BaseModel):
    started: str
    played_seconds: int
    rounds: int
    wagered: int
    net: int = Field(description="cents won (positive) or lost (negative) in this session")
    limit_minutes: int | None
    ends: str | None = Field(
        description="when the session limit ends play: its minutes after the session's start, "
        "or the moment it was set if the session was longer already"
    )
    resumes: str | None = Field(description="when a new session may begin, after the break")


class ExclusionOut(BaseModel):
    kind: str = Field(description="time_out or self_exclusion")
    until: str


class ResponsibleOut(BaseModel):
    limits: LimitsOut
    pending: list[PendingOut]
    usage: dict[str, UsageOut] = Field(description="day, week and month (calendar, UTC)")
    reality_check: RealityCheckOut
    session: SessionOut
    exclusion: ExclusionOut | None
    server_time: str


# A change of your own: your limits, reality check and exclusion as they are after it.
_change = routes(router, *WRITE_ERRORS, response_model=ResponsibleOut)


async def _write(ctx: RequestContext, work: Callable[[UnitOfWork, int], Any]) -> Response:
    answer = await ctx.casino.db.write(lambda uow: work(uow, ctx.caller.player_id(uow)))
    return json_response(answer)


@router.get(
    "",
    response_model=ResponsibleOut,
    responses=documented("not_authenticated"),
    summary="Your limits, pending changes, usage per period, reality check, exclusion",
)
async def get_responsible(ctx: RequestDep) -> Response:
    # A read, unless a pending change has come due or a new session begins (then written).
    answer = await ctx.casino.db.read(lambda uow: responsible.peek(uow, ctx.caller.player_id(uow)))
    if answer is None:
        return await _write(ctx, responsible.overview)
    return json_response(answer)


@_change(
    "PUT", "/limits",
    "Set limits: lower ones apply at once, higher ones (or none) after 24 hours",
    "invalid_limit",
)  # fmt: skip
async def put_limits(body: LimitsIn, ctx: RequestDep) -> Response:
    changes: dict[str, int | None] = {}
    for kind in ("deposit", "loss", "wager"):
        if kind in body.model_fields_set:
            periods: PeriodLimitsIn | None = getattr(body, kind)
            given = periods.model_fields_set if periods else {"day", "week", "month"}
            for period in given:
                changes[f"{kind}_{period}"] = getattr(periods, period) if periods else None
    if "session_minutes" in body.model_fields_set:
        changes["session_minutes"] = body.session_minutes
    return await _write(ctx, lambda uow, p: responsible.set_limits(uow, p, changes))


@_change(
    "PUT", "/reality-check", "How often (minutes) the reality check comes", "invalid_reality_check"
)
async def put_reality_check(body: RealityCheckIn, ctx: RequestDep) -> Response:
    return await _write(ctx, lambda uow, p: responsible.set_reality_check(uow, p, body.minutes))


@_change(
    "POST", "/reality-check/ack",
    "Acknowledge the reality check (time played, net result): play may go on",
)  # fmt: skip
async def ack_reality_check(ctx: RequestDep) -> Response:
    return await _write(ctx, responsible.acknowledge)


def _exclusion(path: str, summary: str) -> Callable[[Handler], Handler]:
    """An exclusion's route (a time-out, a self-exclusion), answered by ``_exclude``."""
    return _change("POST", path, summary, "invalid_exclusion")


@_exclusion(
    "/time-out", "Take a time-out of 1, 7 or 30 days: no play, no deposit; nobody can end it early"
)
async def post_time_out(body: TimeOutIn, ctx: RequestDep) -> Response:
    return await _exclude(ctx, lambda uow, p: responsible.time_out(uow, p, body.days))


@_exclusion(
    "/self-exclusion",
    "Exclude yourself for 6, 12 or 60 months: no play, no deposit; it cannot end early",
)
async def post_self_exclusion(body: SelfExclusionIn, ctx: RequestDep) -> Response:
    return await _exclude(ctx, lambda uow, p: responsible.self_exclude(uow, p, body.months))


async def _exclude(ctx: RequestContext, work: Callable[[UnitOfWork, int], Any]) -> Response:
    """A time-out or a self-exclusion, and in the same transaction the player leaves every
    player-banked seat (an approved round not yet dealt ends: bets and reserve go back)."""

    def job(uow: UnitOfWork, seats: SeatServices) -> Any:
        player_id = ctx.caller.player_id(uow)
        answer = work(uow, player_id)
        service.stand_up_everywhere(uow, seats, player_id)
        return answer

    return json_response(await banked_desk(ctx.request.app).write(job))
