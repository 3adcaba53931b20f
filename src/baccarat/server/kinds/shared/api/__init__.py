"""A shared table over HTTP and its WebSocket (SPEC §9): bets on a coup, a coup, a finished
shoe's record and the table's log (``routes``), the table's socket (``socket``), their
answers (``models``).

``ROUTES``: the kind's routers, the kinds of session each of its routes admits (every kind:
an operator's session bets on the operator's wallet, docs/operator-api.md, "Shared
tables"), and its answers to the table routes every kind's tables share (``api.tables``),
which ``create_app`` adds through the registry (``SharedKind.routes``).
"""

from __future__ import annotations

from baccarat.server.api.access import PLAY
from baccarat.server.kinds.shared.api import routes, socket
from baccarat.server.play.kind import KindRoutes

ROUTES = KindRoutes(
    routers=(socket.router, routes.router),
    session_kinds=dict.fromkeys(
        (
            "PUT /api/tables/{table_id}/coups/{coup}/bets",
            "GET /api/tables/{table_id}/coups/{coup}",
            "GET /api/tables/{table_id}/shoes/{shoe}",
            "GET /api/tables/{table_id}/log",
            "WS /api/tables/{table_id}/ws",
        ),
        PLAY,
    ),
    table_reads={"state": routes.table_state, "roads": routes.table_roads},
)
