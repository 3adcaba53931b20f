"""The lobby's tables are asked again cheaply: an ETag of the answer's bytes, 304 Not
Modified with no body while it is the same, a new answer as soon as the back office (or a
player's currency) makes it another; and sent gzipped to a client that takes it."""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

import pytest
from starlette.requests import Request

from baccarat.server.api.deps import GZIP_MIN, accepts_gzip, revalidated_json_response

from ..harness import Api
from .conftest import both_backends
from .office import send

pytestmark = pytest.mark.anyio


async def tables(api: Api, etag: str | None = None, **headers: str) -> Any:
    if etag is not None:
        headers["If-None-Match"] = etag
    return await api.client.get("/api/tables", headers=headers)


def by_id(answer: Any) -> dict[str, Any]:
    return {t["id"]: t for t in answer.json()}


@both_backends
async def test_the_tables_asked_again_with_their_etag_are_not_modified_until_they_change(
    api: Api,
) -> None:
    from .office import logged_in

    first = await tables(api)
    etag = first.headers["etag"]
    assert first.status_code == 200 and re.fullmatch(r'"[0-9a-f]{32}(-gzip)?"', etag)
    assert first.headers["cache-control"] == "no-cache"
    assert {"authorization", "cookie"} <= {
        v.strip().lower() for v in first.headers["vary"].split(",")
    }
    again = await tables(api, etag)
    assert (again.status_code, again.content) == (304, b"")
    assert again.headers["etag"] == etag and again.headers["cache-control"] == "no-cache"
    assert "content-type" not in again.headers
    # If-None-Match as RFC 9110 has it: a list, weak tags compared weakly, or "*".
    for named in (f'"other", {etag}', f"W/{etag}", f' "a" ,W/"b",  {etag} ', "*"):
        assert (await tables(api, named)).status_code == 304, named
    for other in ('"other"', f'W/{etag[:-2]}"', etag.strip('"'), "", ",", '"', "\x7f junk"):
        answer = await tables(api, other)
        assert answer.status_code == 200 and answer.json() == first.json(), other
    one = await api.client.get("/api/tables/table-i")
    assert one.status_code == 200 and one.headers["etag"] not in (etag, None)
    one_again = await api.client.get(
        "/api/tables/table-i", headers={"If-None-Match": one.headers["etag"]}
    )
    assert (one_again.status_code, one_again.content) == (304, b"")

    # The back office closes table II: the same ETag gets the new tables, with a new ETag.
    ada = await logged_in(api, "ada", "admin")
    off = {"enabled": False, "reason": "dealer fault"}
    assert (await send(api, ada, "PUT", "tables/table-ii/switch", off)).status_code == 200
    closed = await tables(api, etag)
    assert closed.status_code == 200 and closed.headers["etag"] != etag
    assert by_id(closed)["table-ii"]["open"] is False
    assert (await tables(api, closed.headers["etag"])).status_code == 304
    # ... and raises table I's minimum: table I alone is another answer.
    raised = {"limits": {"min": 1_000}, "reason": "high rollers tonight"}
    assert (await send(api, ada, "PUT", "tables/table-i/limits", raised)).status_code == 200
    limited = await tables(api, closed.headers["etag"])
    assert limited.status_code == 200 and limited.headers["etag"] != closed.headers["etag"]
    assert by_id(limited)["table-i"]["limits"]["min"] == 1_000
    one_now = await api.client.get(
        "/api/tables/table-i", headers={"If-None-Match": one.headers["etag"]}
    )
    assert one_now.status_code == 200 and one_now.json()["limits"]["min"] == 1_000
    assert one_now.headers["etag"] != one.headers["etag"]


@both_backends
async def test_a_player_in_another_currency_gets_another_etag_than_the_lobby(api: Api) -> None:
    anonymous = await tables(api)
    yen = await api.player("hanako", currency="JPY")
    api.client.cookies.clear()  # hers by the bearer token alone
    in_yen = await tables(api, anonymous.headers["etag"], Authorization=f"Bearer {yen}")
    assert in_yen.status_code == 200 and in_yen.headers["etag"] != anonymous.headers["etag"]
    assert {t["currency"] for t in in_yen.json()} == {"JPY"}
    again = await tables(api, in_yen.headers["etag"], Authorization=f"Bearer {yen}")
    assert again.status_code == 304
    # Her ETag is not the anonymous lobby's either way round.
    assert (await tables(api, in_yen.headers["etag"])).status_code == 200
    dollars = await api.player("alice")
    api.client.cookies.clear()
    in_dollars = await tables(api, anonymous.headers["etag"], Authorization=f"Bearer {dollars}")
    assert in_dollars.status_code == 304  # the same tables as the anonymous lobby's


async def raw(api: Api, path: str, **headers: str) -> tuple[Any, bytes]:
    """An answer and its body as sent (httpx decodes a gzipped body by itself)."""
    async with api.client.stream("GET", path, headers=headers) as answer:
        return answer, b"".join([chunk async for chunk in answer.aiter_raw()])


async def test_the_tables_are_gzipped_for_a_client_that_takes_it(api: Api) -> None:
    plain, text = await raw(api, "/api/tables", **{"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and len(text) > 30_000
    assert "accept-encoding" in plain.headers["vary"].lower()
    zipped, body = await raw(api, "/api/tables", **{"Accept-Encoding": "gzip, deflate, br"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert int(zipped.headers["content-length"]) == len(body) < len(text) // 5
    assert gzip.decompress(body) == text  # the same JSON, byte for byte
    assert json.loads(text) == (await api.client.get("/api/tables")).json()
    # Another representation, another ETag: each revalidates its own.
    assert zipped.headers["etag"] == plain.headers["etag"][:-1] + '-gzip"'
    for coding, etag, status in (("gzip", zipped.headers["etag"], 304),
                                 ("identity", plain.headers["etag"], 304),
                                 ("gzip", plain.headers["etag"], 200),
                                 ("identity", zipped.headers["etag"], 200)):  # fmt: skip
        asked = await api.client.get(
            "/api/tables", headers={"Accept-Encoding": coding, "If-None-Match": etag}
        )
        assert asked.status_code == status, (coding, etag)
        assert asked.headers["etag"] == (zipped if coding == "gzip" else plain).headers["etag"]
    one, one_body = await raw(api, "/api/tables/table-i", **{"Accept-Encoding": "gzip"})
    assert one.headers["content-encoding"] == "gzip"
    assert json.loads(gzip.decompress(one_body))["id"] == "table-i"
    # Refused or not understood: not gzipped.
    for refused in ("gzip;q=0", "gzip;q=0, *", "br", "gzip;q=x", "", "x-gzip;q=0.0"):
        answer, body = await raw(api, "/api/tables", **{"Accept-Encoding": refused})
        assert "content-encoding" not in answer.headers and body == text, refused


def test_which_accept_encoding_takes_gzip() -> None:
    takes = ("gzip", "GZIP", "deflate, gzip;q=0.5", "x-gzip", "*", "br;q=1, *;q=0.1",
             "gzip ; q=1.0")  # fmt: skip
    refuses = (None, "", "identity", "gzip;q=0", "*, gzip;q=0", "*;q=0", "gzip;q=nope", ",;=")
    assert all(accepts_gzip(header) for header in takes)
    assert not any(accepts_gzip(header) for header in refuses)


def test_a_small_answer_is_not_gzipped() -> None:
    def answer(data: Any) -> Any:
        request = Request({"type": "http", "method": "GET", "path": "/", "query_string": b"",
                           "headers": [(b"accept-encoding", b"gzip")]})  # fmt: skip
        return revalidated_json_response(request, data)

    small = [{"id": "t", "name": "x" * (GZIP_MIN - 40)}]
    assert len(json.dumps(small)) < GZIP_MIN
    assert "content-encoding" not in answer(small).headers
    assert json.loads(answer(small).body) == small
    large = [{"id": "t", "name": "x" * GZIP_MIN}]
    assert answer(large).headers["content-encoding"] == "gzip"


async def test_a_rounds_answer_is_not_gzipped(api: Api) -> None:
    """The hot path pays nothing for compression."""
    token = await api.player("alice")
    headers = api.auth(token) | {"Accept-Encoding": "gzip"}
    played = await api.client.post(
        "/api/tables/table-i/rounds", json={"mode": "fun", "bets": {"player": 500}}, headers=headers
    )
    assert played.status_code == 201 and "content-encoding" not in played.headers
