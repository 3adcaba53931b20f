"""What an operator watches: the metrics (``metrics``, Prometheus' text format at
``GET /metrics``), the request log (``logs``: one JSON object a line, or text) and the
middleware that feeds both (``requests``). Nothing here imports the rest of the server: the
services, the database runner and the API call in (docs/operations.md)."""
