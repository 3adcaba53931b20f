"""The reference operator (``baccarat operator-demo``): a small casino platform of its own,
with players, a wallet in SQLite, a login page and the seamless-wallet API of either contract
of docs/operator-api.md (API v1, or actions), whose answers it can be told to make late,
fail or drop."""
