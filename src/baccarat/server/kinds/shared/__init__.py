"""Shared tables (SPEC §9): one shoe dealt on the server's clock, every player at the table
betting on the same coup.

- ``bank``: the ``Bank`` of a shared coup (the house covers every bet, whose stake has been
  held in escrow since it was placed), the table's shoe, and its coup dealt once (a
  ``round.ShoeSource`` every batch of bettors is settled from);
- ``clock``: the table's clock in the database (betting -> closed -> dealt -> next window),
  its shoes (committed before any bet, revealed when they end) and the coup's deal (once)
  and settlement, a batch through ``round.play`` per mode and per operator;
- ``events``: what each transition did, as frozen records, emitted on the event bus by the
  transaction that did it; ``feed``: every worker's sockets told from them; ``runtime``:
  the worker's dealer task, watchers and feed;
- ``bets``: a bettor's bets on the coup in its window, the stake taken at once;
- ``views``: what anyone sees (the table's state, a coup, the roads, a finished shoe's
  record for the verifier);
- ``check``: ``baccarat admin check`` of the shared rounds and what they hold in escrow;
- ``kind``, ``terms``: the kind as the registry lists it, and its terms in the tables file;
- ``beacon``: the public randomness beacon (a port, and drand's HTTP API) each shoe waits
  for when one is configured; ``tablelog``: each table's hash-chained log of its shoes;
- ``api``: its routes (bets on a coup, a coup, a shoe's record, the log; its answers to a
  table's state and roads) and the table's socket.
"""
