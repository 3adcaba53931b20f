"""The bodies and answers of the player-banked seat routes (``api.seats``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from baccarat.server.api.models import BetsIn, Body, Mode

Role = Literal["player", "banker"]


class JoinIn(Body):
    table_id: str = Field(max_length=64, examples=["banked-ii"])
    role: Role
    mode: Mode
    seat_id: str | None = Field(
        default=None, max_length=80, description="a particular seat; else the server matches"
    )
    auto_approve: bool = Field(default=False, description="bankers: approve every round")


class AutoApproveIn(Body):
    on: bool


class SeatClientSeedIn(Body):
    client_seed: str = Field(max_length=64)


class PlaceBetsIn(Body):
    bets: BetsIn


class DealIn(Body):
    bets: BetsIn | None = Field(
        default=None, description="bet and deal at once (else the bets placed are dealt)"
    )


class PersonOut(BaseModel):
    nickname: str
    points: int


class BankerOut(PersonOut):
    auto_approve: bool
    away: bool = Field(description="left after approving: the round goes on without them")


class TimerOut(BaseModel):
    role: Role = Field(description="whose decision it is")
    seconds: int
    remaining_ms: int
    deadline: str


class SeatRoundOut(BaseModel):
    id: str
    time: str
    player: dict[str, Any]
    banker: dict[str, Any]
    winner: Literal["player", "banker", "tie"]
    bets: dict[str, Any]
    stake: int
    win: int
    fee: int
    results: dict[str, Any] = Field(description="per role: net result and points")
    void_reason: str | None


class SeatOut(BaseModel):
    id: str
    table_id: str
    number: int
    mode: Mode | None
    phase: Literal["waiting", "approval", "betting"]
    version: int
    needs: list[Role]
    player: PersonOut | None
    banker: BankerOut | None
    timer: TimerOut | None
    bets: dict[str, int]
    stake: int
    fee: int = Field(description="the casino's fee on the bets placed, from the banker")
    reserved: int = Field(description="the banker's exposure held while a round is open")
    terms: dict[str, Any]
    notice: dict[str, Any] | None
    last_round: SeatRoundOut | None
    fairness: dict[str, Any] | None = Field(
        default=None,
        description="the pair's own seed (null while a role is free): its commitment, the "
        "next nonce, whether the first deal fixed the client seeds, and per role whether its "
        "client seed is set and by whom (the seeds themselves once fixed)",
    )


class SeatStateOut(BaseModel):
    seat: SeatOut
    you: Role | None = Field(description="your role at this seat")
    private: dict[str, Any] = Field(description="what only you see: your balance")
    allowed_actions: list[
        Literal["approve", "auto_approve", "bets", "deal", "client_seed", "leave"]
    ] = Field(description="what you may do at this seat now (the actions of the seat socket)")


class LobbySeatOut(BaseModel):
    id: str
    table_id: str
    number: int
    mode: Mode | None
    phase: str
    needs: list[Role]
    player: PersonOut | None
    banker: PersonOut | None
    version: int


class MeOut(BaseModel):
    points: dict[str, int] = Field(description="your loyalty points per mode")
    seats: list[dict[str, Any]]


class LobbyOut(BaseModel):
    seats: list[LobbySeatOut]
    me: MeOut | None
