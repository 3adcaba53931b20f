"""The player-banked tables over HTTP and WebSockets (SPEC §7): the lobby's seat list, join,
the seat as its participants see it and its actions (``routes``), the seats' sockets
(``socket``), their bodies and answers (``models``).

``ROUTES``: the kind's routers and the kinds of session each of its routes admits (our own
players' alone: a banker's escrow is on our own wallet; docs/operator-api.md), which
``create_app`` adds through the registry (``BankedKind.routes``).
"""

from __future__ import annotations

from baccarat.server.api.access import OWN
from baccarat.server.kinds.banked.api import routes, socket
from baccarat.server.play.kind import KindRoutes

ROUTES = KindRoutes(
    routers=(socket.router, routes.router),
    session_kinds={
        "GET /api/seats": OWN,
        "POST /api/seats": OWN,
        "GET /api/seats/{seat_id}": OWN,
        "POST /api/seats/{seat_id}/leave": OWN,
        "POST /api/seats/{seat_id}/approve": OWN,
        "PUT /api/seats/{seat_id}/auto-approve": OWN,
        "PUT /api/seats/{seat_id}/client-seed": OWN,
        "PUT /api/seats/{seat_id}/bets": OWN,
        "POST /api/seats/{seat_id}/deal": OWN,
        "WS /api/seats/{seat_id}/ws": OWN,
        "WS /api/seats/ws": OWN,
    },
)
