"""Program errors (issue 43, item 6): a burst of the same one from one client is one
significant event and one traceback in the log, then a closing event with its count; the
error is answered inside the app, never raised on to the server (which would log it all)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from baccarat.server import significant
from baccarat.server.api.program_errors import WINDOW_S
from baccarat.server.kinds.shared import views

from ..harness import Api, client_at
from .conftest import both_backends
from .support import error_code

pytestmark = pytest.mark.anyio
SHOE = "/api/tables/live/shoes/{}"


def a_bug(uow: Any, table: Any, shoe_id: int) -> Any:
    raise RuntimeError(f"a bug met by shoe {shoe_id}")


RAISED = a_bug.__code__.co_firstlineno + 1  # the line that raises


@pytest.fixture
def buggy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shoe's record is a program error."""
    monkeypatch.setattr(views, "shoe_record", a_bug)


async def program_errors(api: Api) -> list[significant.Event]:
    """The program errors recorded, oldest first."""
    found = await api.casino.db.read(lambda uow: significant.listed(uow, kind="program_error"))
    return found[::-1]


async def fail(client: httpx.AsyncClient, times: int) -> None:
    for shoe in range(1, times + 1):
        answer = await client.get(SHOE.format(shoe))
        assert answer.status_code == 500 and error_code(answer) == "internal_error"


def tracebacks(caplog: pytest.LogCaptureFixture) -> int:
    return sum(1 for record in caplog.records if record.exc_info)


@both_backends
async def test_a_burst_of_one_program_error_is_one_event_and_one_traceback_then_a_count(
    api: Api, buggy: None, caplog: pytest.LogCaptureFixture
) -> None:
    async with (
        client_at(api.app, "203.0.113.7") as mallory,
        client_at(api.app, "198.51.100.9") as bob,
    ):
        await fail(mallory, 40)
        (first,) = await program_errors(api)
        assert first.subject == "GET /api/tables/live/shoes/1"
        assert first.details == {
            "error": "RuntimeError", "at": f"test_server_program_errors.py:{RAISED} a_bug",
            "route": "GET /api/tables/{table_id}/shoes/{shoe}", "client": "203.0.113.7",
        }  # fmt: skip
        assert tracebacks(caplog) == 1
        # Another client's error is its own burst.
        await fail(bob, 3)
        assert [e.details["client"] for e in await program_errors(api)] == [
            "203.0.113.7", "198.51.100.9"
        ]  # fmt: skip
        assert tracebacks(caplog) == 2
        # The window over, the next error closes the bursts with their counts and begins
        # another.
        api.clock.advance(WINDOW_S)
        await fail(mallory, 1)
        closing = {e.details["client"]: e for e in (await program_errors(api))[2:4]}
        assert {c: e.details["repeated"] for c, e in closing.items()} == {
            "203.0.113.7": 39, "198.51.100.9": 2
        }  # fmt: skip
        assert closing["203.0.113.7"].subject == "GET /api/tables/live/shoes/1"
        again = (await program_errors(api))[-1]
        assert "repeated" not in again.details and again.details["client"] == "203.0.113.7"
        assert tracebacks(caplog) == 3
        # At shutdown the open bursts are closed.
        await fail(mallory, 3)
    await api.app.state.program_errors.flush()
    last = (await program_errors(api))[-1]
    assert (last.details["client"], last.details["repeated"]) == ("203.0.113.7", 3)
    assert len(await program_errors(api)) == 6
    assert tracebacks(caplog) == 3


async def test_a_program_error_is_answered_and_not_raised_on_to_the_server(
    api: Api, buggy: None
) -> None:
    # ``api.client`` raises what the app raises, as a server would see (and log) it.
    answer = await api.client.get(SHOE.format(1))
    assert answer.status_code == 500 and error_code(answer) == "internal_error"
    assert answer.json()["error"]["message"] == "an unexpected error occurred"


async def test_the_bursts_tracked_are_bounded_and_the_clients_beyond_share_one(
    api: Api, buggy: None
) -> None:
    api.app.state.program_errors.max_bursts = 3
    for n in range(6):
        async with client_at(api.app, f"192.0.2.{n}") as client:
            await fail(client, 2)
    clients = [e.details["client"] for e in await program_errors(api)]
    assert clients == ["192.0.2.0", "192.0.2.1", "192.0.2.2", "others"]
    await api.app.state.program_errors.flush()
    counts = {e.details["client"]: e.details.get("repeated") for e in await program_errors(api)}
    assert counts["others"] == 5


async def test_a_burst_is_closed_when_its_window_ends_without_another_error(
    api: Api, buggy: None
) -> None:
    recorder = api.app.state.program_errors
    async with client_at(api.app, "203.0.113.7") as mallory:
        await fail(mallory, 5)
    await recorder.close_due()  # what the timer does at the window's end
    assert [e.details.get("repeated") for e in await program_errors(api)] == [None]
    api.clock.advance(WINDOW_S)
    await recorder.close_due()
    assert [e.details.get("repeated") for e in await program_errors(api)] == [None, 4]
    assert recorder.bursts == {}
