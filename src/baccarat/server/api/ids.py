"""Integer ids in paths and queries, bounded to the database's BIGINT here, once.

Every id the database keeps is a BIGINT from 1: an id beyond it names nothing. Unbounded,
it reached the database, where SQLite cannot even bind it (``OverflowError``: a 500, a
traceback and a ``program_error`` for any anonymous ``GET /api/tables/live/shoes/1e20``).
A path id out of range is answered 404 ``not_found`` (``errors.py``: a path's integer out
of its bounds names no resource); a query's (a page's cursor) 422 ``invalid_request``.
``tests/server/test_server_ids.py`` walks every route with an integer parameter.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

BIGINT_MAX = 2**63 - 1

# A row's id in a path (a shared coup, a shoe, a player, a proposal, a request).
Id = Annotated[int, Path(ge=1, le=BIGINT_MAX, description="an id (1 and up)")]
# The cursor of a page: the ids below this one.
Before = Annotated[int | None, Query(ge=1, le=BIGINT_MAX, description="ids below this (next page)")]
