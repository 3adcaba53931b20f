"""Player-banked tables (SPEC §7, seed 000 "Spielen als Geber"): one player banks against
another at each seat, the casino takes a fee, loyalty points decide who may bank where.

- ``terms``: the arithmetic (fee, points, exposure, minimum banker balance); pure.
- ``seats``: a seat as stored, and how each participant sees it.
- ``money``: the ledger movements (escrow of bets and of the banker's exposure, settlement,
  void), every one a balanced transaction.
- ``service``: the actions (join, leave, approve, auto-approve, bets, deal, timeouts,
  disconnects), each one unit of work that emits the seat's events.
- ``events``: delivering those events to WebSocket clients (in-process with SQLite,
  PostgreSQL LISTEN/NOTIFY across workers).
- ``desk``: the per-worker runtime: seats, deadline resolver, event listener.
"""
