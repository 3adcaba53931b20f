"""Player-banked tables (SPEC §7, seed 000 "Spielen als Geber"): one player banks against
another at each seat, the casino takes a fee, loyalty points decide who may bank where.

- ``kind``: the kind (``BankedKind``) as the registry lists it;
- ``terms``: the arithmetic (fee, points, exposure, minimum banker balance); pure;
- ``seats``: a seat as stored, and how each participant sees it;
- ``bank``: the seat's banker as the round's ``Bank``; ``escrow``: what a seat holds;
  ``seed``: a seat's own seed, both participants contributing;
- ``service``: the actions (join, leave, approve, auto-approve, bets, deal, timeouts,
  disconnects), each one unit of work that emits the seat's events on the event bus;
- ``timing``: deadlines and connections; ``runtime``: the per-worker desk (seats, the
  deadline resolver, the seats' clients on the bus); ``check``: ``admin check`` of its
  rounds and what it holds in escrow; ``api``: its routes and sockets.
"""
