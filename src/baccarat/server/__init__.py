"""The game server: accounts, a double-entry wallet, tables of several kinds, rounds, history.

Layout (dependencies point inward; docs/architecture.md draws it and gives the recipes):

- ``settings``, ``errors``, ``jsontext``, ``currencies``, ``vault``: what everything stands on;
- ``db``: the schema, its migrations, the unit of work and the database runner;
- ``money`` (the wallet port), ``ledger`` (the double-entry ledger), ``tables``, ``seeds``,
  ``dealing``, ``history``, ``accounts``, ``auth``, ``responsible``, ``switches``,
  ``significant`` (significant events), ``daily``, ``roads``, ``keys``, ``software``;
- ``play``: the round engine (the round function and its ports, what a table kind is, the
  event bus, the idempotent write, the admin check's report);
- ``kinds``: the table kinds (``house``, ``shared``, ``banked``), one package each, and
  their registry (``kinds.KINDS``);
- ``wallets``: the wallet adapters (an operator's seamless wallet);
- ``casino`` (what the API and the admin commands share), ``check`` (``admin check``),
  ``replay``, ``voids``, ``wallet`` (the cashier), ``office`` (the back office);
- ``api``: thin FastAPI routers; ``app``: ``create_app(settings)`` builds everything.

Importing this package does nothing.
"""
