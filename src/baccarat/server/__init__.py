"""The game server: accounts, a double-entry wallet, tables, rounds, history.

Layout (dependencies point inward): ``settings`` and ``errors``; ``db`` (schema, migrations,
the unit of work and the database runner); the domain services (``ledger``, ``wallet``,
``accounts``, ``auth``, ``tables``, ``seeds``, ``dealing``, ``pipeline``, ``rounds``,
``voids``, ``replay``, ``history``, ``roads``, ``idempotency``, ``audit``, and ``banked``
for player-banked tables); ``casino`` (what the API and the admin commands share); ``api``
(thin FastAPI routers); and ``app``, whose ``create_app(settings)`` builds everything.
Importing this package does nothing.
"""
