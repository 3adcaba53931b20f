"""App factories for real server processes in tests (uvicorn ``--factory``): the settings
come from the environment as in production, with cheap password hashing; ``stacked`` also
deals a stacked shoe (``BACCARAT_TEST_STACK``) and stacked multiplier cards
(``BACCARAT_TEST_LIGHTNING``). The server itself never uses these."""

from __future__ import annotations

import dataclasses
import os

from fastapi import FastAPI

from baccarat.server.app import create_app
from baccarat.server.settings import LoginThrottle, Settings

from ..harness import cheap_passwords
from .support import StackedLightning, StackedShoes

CHEAP = cheap_passwords()
# Every test client registers from 127.0.0.1.
OPEN = LoginThrottle(registrations_per_hour=10_000)


def fair() -> FastAPI:
    return create_app(
        dataclasses.replace(Settings.from_env(), passwords=CHEAP, login_throttle=OPEN)
    )


def stacked() -> FastAPI:
    """The stacked shoe of ``BACCARAT_TEST_STACK``, and at a multiplier table the stacked
    multiplier cards of ``BACCARAT_TEST_LIGHTNING`` ("Ah:3 Kd:8"), if set."""
    lightning = os.environ.get("BACCARAT_TEST_LIGHTNING")
    settings = dataclasses.replace(
        Settings.from_env(),
        shoe_factory=StackedShoes(os.environ["BACCARAT_TEST_STACK"]),
        lightning_source=None if lightning is None else StackedLightning(lightning),
        passwords=CHEAP,
        login_throttle=OPEN,
    )
    return create_app(settings)


class ShiftedClock:
    """The system clock moved on by the microseconds written in a file (tests move it)."""

    def __init__(self, path: str):
        self.path = path

    def __call__(self) -> int:
        from baccarat.server.settings import system_clock_us

        with open(self.path, encoding="ascii") as shift:
            return system_clock_us() + int(shift.read().strip() or 0)


def shifted() -> FastAPI:
    """The real server with its clock shifted by ``BACCARAT_TEST_CLOCK_SHIFT``'s file."""
    clock = ShiftedClock(os.environ["BACCARAT_TEST_CLOCK_SHIFT"])
    return create_app(dataclasses.replace(Settings.from_env(), passwords=CHEAP, clock=clock))
