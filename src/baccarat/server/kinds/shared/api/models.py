"""The answers of a shared table's own routes (``routes``): your bets on a coup, and a coup."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class SharedBetsOut(BaseModel):
    table_id: str
    coup: int
    mode: str
    bets: dict[str, int]
    stake: int
    fee: int = Field(
        default=0,
        description="a multiplier table: the fee held with the stake (taken when the coup "
        "is settled, given back if the bets are withdrawn)",
    )
    balance: int
    closes_at: int
    server_time: int
    # A session an operator launched: the round on its wallet holding these bets (None once
    # withdrawn) and its state ("placed": the operator confirmed the bet).
    operator_round: str | None = None
    operator_state: str | None = None


class SharedCoupOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    table_id: str
    coup: int
    phase: str
    result: dict[str, Any] | None = Field(description="the cards, winner and scores once dealt")
    bets: dict[str, dict[str, Any]] = Field(
        description="the caller's bets on the coup by mode, with returned once settled"
    )
