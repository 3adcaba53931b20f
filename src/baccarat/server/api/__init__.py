"""The HTTP API: thin FastAPI routers that parse, call a service in a unit of work, answer."""
