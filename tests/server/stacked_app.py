"""An app factory for real server processes in tests: settings from the environment, and a
stacked shoe (``BACCARAT_TEST_STACK``) instead of the fair derivation. Never used by the
server itself: tests start uvicorn with ``tests.server.stacked_app:create --factory``."""

from __future__ import annotations

import dataclasses
import os

from fastapi import FastAPI

from baccarat.server.app import create_app
from baccarat.server.settings import PasswordHashing, Settings

from .support import StackedShoes


def create() -> FastAPI:
    settings = dataclasses.replace(
        Settings.from_env(),
        shoe_factory=StackedShoes(os.environ["BACCARAT_TEST_STACK"]),
        passwords=PasswordHashing(time_cost=1, memory_cost=8, parallelism=1),
    )
    return create_app(settings)
