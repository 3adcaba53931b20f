"""A unit of work on its way to a writer thread, and what a caller gets when it fails."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError

T = TypeVar("T")
Work = Callable[[UnitOfWork], T]


def unavailable(error: BaseException) -> ServiceError:
    return ServiceError("service_unavailable", f"the database could not do the work: {error}")


@dataclass(eq=False)
class Job(Generic[T]):
    """A unit of work, the loop that waits for it, and its outcome."""

    work: Work[T]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[T]
    result: Any = None
    error: BaseException | None = None
    uow: UnitOfWork | None = field(default=None, repr=False)
    tries: int = 0

    def resolve(self) -> None:
        if self.future.done():
            return
        if self.error is not None:
            self.future.set_exception(self.error)
        else:
            self.future.set_result(self.result)
