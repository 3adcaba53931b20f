"""House tables: the casino covers the bets, each player deals their own rounds from their
own shoe (a fresh shuffle each round, or a cut shoe of their own).

- ``kind``: the kind (``HouseKind``) as the registry lists it;
- ``service``: the round of a house table (``play_round``), the player's cut shoe
  (``CutShoe``), what the player may do next (``allowed_actions``) and the table's state.
"""
