"""``GET /metrics``: the server's metrics in Prometheus' text format, for the operator's
token only (``BACCARAT_METRICS_TOKEN``, sent as ``Authorization: Bearer``). Without a token
set the metrics are not served: players never read them."""

from __future__ import annotations

import asyncio
import hmac

from fastapi import APIRouter, Request, Response

from baccarat.server.api.deps import CasinoDep
from baccarat.server.api.errors import documented
from baccarat.server.errors import ServiceError
from baccarat.server.observe import metrics

router = APIRouter(tags=["system"])


@router.get(
    "/metrics",
    summary="Metrics (Prometheus' text format; the operator's token)",
    responses=documented("metrics_disabled", "metrics_unauthorized"),
    response_class=Response,
)
async def scrape(request: Request, casino: CasinoDep) -> Response:
    token = casino.settings.metrics_token
    if not token:
        raise ServiceError(
            "metrics_disabled", "this server serves no metrics: set BACCARAT_METRICS_TOKEN"
        )
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(),
                                                             token.encode()):  # fmt: skip
        raise ServiceError(
            "metrics_unauthorized",
            "the metrics need the operator's token: Authorization: Bearer <metrics token>",
        )
    backlog = await casino.db.read(metrics.outbox_backlog, heavy=True)
    text = await asyncio.to_thread(metrics.render, backlog)
    return Response(text, media_type=metrics.CONTENT_TYPE)
