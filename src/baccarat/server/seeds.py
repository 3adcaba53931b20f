"""Each player's provably fair state per mode: two committed server seeds, a client seed,
their nonces.

The server seeds are secret until the player rotates them; their commitments (sha256) are
shown before any round uses them, and before the client seed they are used with is known: at
registration and at every rotation the server commits the next two and puts a placeholder
client seed of its own (``client_seed_source`` "server") until the player sets theirs
("client"). The first seed deals the fresh-shuffle tables, a nonce a round; the second (the
state's ``shoe``) the cut shoes, a nonce a shoe. Rotating retires both and commits two new
ones at once: the fresh-shuffle tables' seed is revealed (so every round dealt from it can
be verified) at once, the cut shoes' at once too, or, while a cut shoe is still dealt from
it, when the last such shoe ends: rotation takes effect at the next shoe, so that nobody
ends a shoe at will, and holds back no other table's rounds. (A state made before the shoe
seeds has none until its next rotation: its cut shoes take the first seed's nonces.)

Until it is revealed the seed is stored sealed (``vault``): opened only to deal from it
(``take_nonce``, a cut shoe's next coup, a seat's coup) and to reveal it
(``reveal_if_done``); revealed, it is public and kept as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from baccarat.fairness import commitment, new_client_seed, new_server_seed
from baccarat.fairness.history import UndealtShoe
from baccarat.server.db.lookup import Lookup
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.ledger import MODES
from baccarat.server.vault import NoVault, SeedKeyError, Vault, is_sealed

# What this server lets a player set as a client seed (the protocol itself takes any text):
# characters a player can type the same on any keyboard and read back unambiguously, so no
# Unicode look-alikes or normalisations (NFC and NFD spell "ü" with different bytes).
CLIENT_SEED_MAX = 64
CLIENT_SEED_RULE = (
    f"a client seed is 1 to {CLIENT_SEED_MAX} printable ASCII characters "
    "(codes 32 to 126: letters, digits, the space and punctuation)"
)
_CLIENT_SEED = re.compile(rf"[\x20-\x7e]{{1,{CLIENT_SEED_MAX}}}")
# The revealed seeds a player is shown at most (the newest); rotations are limited too.
MAX_REVEALED = 1000
ROTATIONS_PER_HOUR = 30


def check_client_seed(client_seed: str) -> str:
    if not isinstance(client_seed, str) or not _CLIENT_SEED.fullmatch(client_seed):
        wrong = "" if not isinstance(client_seed, str) else _first_wrong(client_seed)
        raise ServiceError(
            "invalid_client_seed", CLIENT_SEED_RULE + wrong, max_length=CLIENT_SEED_MAX,
            allowed="printable ASCII, codes 32-126",
        )  # fmt: skip
    return client_seed


def _first_wrong(client_seed: str) -> str:
    """What is wrong with a text that is not a client seed, said after the rule."""
    if not client_seed:
        return ": it is empty"
    if len(client_seed) > CLIENT_SEED_MAX:
        return f": it has {len(client_seed)}"
    bad = next(c for c in client_seed if not " " <= c <= "~")
    return f": {bad!a} at position {client_seed.index(bad)} is not one of them"


@dataclass(frozen=True, slots=True)
class ShoeSeed:
    """The cut shoes' seed of a state: every cut shoe takes its next nonce."""

    seed_id: int
    commitment: str
    next_nonce: int
    created_us: int


@dataclass(frozen=True, slots=True)
class FairnessState:
    mode: str
    seed_id: int
    commitment: str
    client_seed: str
    next_nonce: int
    client_seed_source: str = "client"
    shoe: ShoeSeed | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "commitment": self.commitment,
            "client_seed": self.client_seed,
            "client_seed_source": self.client_seed_source,
            "next_nonce": self.next_nonce,
        }


@dataclass(frozen=True, slots=True)
class Nonce:
    """What a shuffle needs: the seeds and the nonce it was given."""

    seed_id: int
    server_seed: str
    commitment: str
    client_seed: str
    nonce: int
    client_seed_source: str | None = None


@dataclass(frozen=True, slots=True)
class RevealedSeed:
    mode: str
    server_seed: str
    commitment: str
    created_us: int
    revealed_us: int
    nonces_used: int
    # The shoes cut under the seed that dealt no round; None: revealed before they were
    # recorded (migration 0008), or with a shoe cut before that in play.
    undealt_shoes: tuple[UndealtShoe, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "server_seed": self.server_seed,
            "commitment": self.commitment,
            "nonces_used": self.nonces_used,
            "undealt_shoes": None
            if self.undealt_shoes is None
            else [shoe.to_json() for shoe in self.undealt_shoes],
        }


def _undealt_of(text: str | None) -> tuple[UndealtShoe, ...] | None:
    if text is None:
        return None
    return tuple(UndealtShoe(s["nonce"], s["table_id"], s["cut"]) for s in json.loads(text))


@dataclass(frozen=True, slots=True)
class Published:
    """What the server published about a revealed seed, for its export lines."""

    nonces_used: int
    undealt_shoes: tuple[UndealtShoe, ...]


def published(
    uow: UnitOfWork, player_id: int | None, commitments: Iterable[str]
) -> dict[str, Published]:
    """Per commitment of the player's revealed seeds among ``commitments`` (player None:
    of the seats' seeds, which are both participants'): the nonces the seed gave out and
    its undealt shoes (seeds revealed before these were recorded have none: their lines go
    without, and a verifier says what it could not check)."""
    wanted = sorted(set(commitments))
    if not wanted:
        return {}
    names = {f"c{i}": c for i, c in enumerate(wanted)}
    whose = "seat_id IS NOT NULL" if player_id is None else "player_id = :p AND seat_id IS NULL"
    rows = uow.all(
        f"SELECT commitment, nonces_used, undealt_shoes FROM fairness_seeds WHERE {whose} "
        "AND revealed_us IS NOT NULL AND undealt_shoes IS NOT NULL "
        f"AND commitment IN ({', '.join(':' + n for n in names)})",
        {"p": player_id, **names},
    )
    found = {}
    for committed, used, undealt in rows:
        shoes = _undealt_of(undealt)
        assert shoes is not None
        found[committed] = Published(int(used or 0), shoes)
    return found


def _vault(uow: UnitOfWork) -> Vault:
    if uow.vault is None:
        raise SeedKeyError(NoVault.why())
    return uow.vault


def open_seed(uow: UnitOfWork, stored: str, committed: str) -> str:
    """A sealed server seed opened: only to deal from it or to reveal it."""
    return _vault(uow).open(stored, committed)


def seal(uow: UnitOfWork, server_seed: str, committed: str) -> str:
    """A new server seed as it is stored until revealed (a shared table's shoe's too)."""
    return _vault(uow).seal(server_seed, committed)


def opened(uow: UnitOfWork, stored: str, committed: str) -> str:
    """A stored seed in the clear: opened if sealed, as it is once revealed."""
    return open_seed(uow, stored, committed) if is_sealed(stored) else stored


def check_vault(uow: UnitOfWork) -> None:
    """Open one sealed seed, if there is any: a server given another seed key than the one
    its seeds were sealed with says so when it starts, not at its first deal."""
    row = uow.one(
        "SELECT server_seed, commitment FROM fairness_seeds WHERE revealed_us IS NULL LIMIT 1"
    )
    if row is not None:
        open_seed(uow, row[0], row[1])


def new_seed(
    uow: UnitOfWork, player_id: int, mode: str, seat_id: str | None = None,
    nonces_used: int | None = None,
) -> tuple[int, str, str]:  # fmt: skip
    """A new server seed, committed: its id, the seed sealed (as stored) and its commitment
    (a seat's seed is recorded under the seat's player, with the seat; a seed that counts
    its nonces as it gives them out, the cut shoes', starts ``nonces_used`` at 0)."""
    server_seed = new_server_seed()
    committed = commitment(server_seed)
    sealed = _vault(uow).seal(server_seed, committed)
    seed_id = int(
        uow.scalar(
            "INSERT INTO fairness_seeds "
            "(player_id, mode, server_seed, commitment, created_us, seat_id, nonces_used) "
            "VALUES (:p, :m, :s, :c, :now, :seat, :used) RETURNING id",
            {"p": player_id, "m": mode, "s": sealed, "c": committed, "now": uow.now,
             "seat": seat_id, "used": nonces_used},
        )
    )  # fmt: skip
    return seed_id, sealed, committed


def open_states(uow: UnitOfWork, player_id: int) -> None:
    for mode in MODES:
        seed_id, server_seed, committed = new_seed(uow, player_id, mode)
        uow.run(
            "INSERT INTO fairness_states (player_id, mode, seed_id, server_seed, commitment, "
            "client_seed, next_nonce, client_seed_source, shoe_seed_id) "
            "VALUES (:p, :m, :id, :s, :c, :cs, 0, 'server', :shoe)",
            {
                "p": player_id,
                "m": mode,
                "id": seed_id,
                "s": server_seed,
                "c": committed,
                "cs": new_client_seed(),
                "shoe": new_seed(uow, player_id, mode, nonces_used=0)[0],
            },
        )


def state(uow: UnitOfWork, player_id: int, mode: str) -> FairnessState:
    row = uow.one(
        "SELECT f.seed_id, f.commitment, f.client_seed, f.next_nonce, f.client_seed_source, "
        "s.id, s.commitment, s.nonces_used, s.created_us FROM fairness_states f "
        "LEFT JOIN fairness_seeds s ON s.id = f.shoe_seed_id "
        "WHERE f.player_id = :p AND f.mode = :m",
        {"p": player_id, "m": mode},
    )
    if row is None:
        raise ServiceError("unknown_player", "the player has no fairness state")
    shoe = None if row[5] is None else ShoeSeed(int(row[5]), row[6], int(row[7] or 0), int(row[8]))
    return FairnessState(mode, int(row[0]), row[1], row[2], int(row[3]), row[4], shoe)


# Where statements pipeline (``UnitOfWork.pipelines``: PostgreSQL), each player's seeds and
# next nonce per mode as this process last committed them, so that a shuffle needs no
# round trip of its own: the nonce is taken by an update that checks them
# (``UnitOfWork.expect``), sent with the round's next statement. Whatever changed them
# meanwhile (another process's round, a rotation, a client seed set) makes it change no
# row: the unit of work is tried again and reads them (``Stale``), and so does every later
# round of a player found changed elsewhere (their rounds are dealt by other processes
# too: a cache would be stale half the time). By database (its vault) as well.
_NEXT: dict[tuple[int, int, str], Nonce] = {}
_ELSEWHERE: set[tuple[int, int, str]] = set()
_NEXT_MAX = 100_000
_TAKE_CACHED = (
    "UPDATE fairness_states SET next_nonce = next_nonce + 1 "
    "WHERE player_id = :p AND mode = :m AND seed_id = :s AND next_nonce = :n "
    "AND client_seed = :cs AND client_seed_source IS NOT DISTINCT FROM :source"
)


def _kept(uow: UnitOfWork, player_mode: tuple[int, str]) -> bool:
    """This process keeps the player's next nonce (and it was not found changed elsewhere)."""
    key = (id(uow.vault), *player_mode)
    return key in _NEXT and key not in _ELSEWHERE


# The nonce ``take_nonce`` takes by (player, mode), with the seeds it is under, taken in
# the database (the row stays locked until commit); a round asks for it ahead
# (``Lookup.ahead``) unless this process keeps it.
NONCE: Lookup[tuple[int, str]] = Lookup(
    "UPDATE fairness_states SET next_nonce = next_nonce + 1 WHERE player_id = :p AND mode = :m "
    "RETURNING seed_id, server_seed, commitment, client_seed, next_nonce, client_seed_source",
    "p",
    "m",
    kept=_kept,
)


def take_nonce(uow: UnitOfWork, player_id: int, mode: str) -> Nonce:
    """The next nonce under the current seeds (the row stays locked until commit)."""
    if not uow.pipelines:
        return _take(uow, player_id, mode)
    key = (id(uow.vault), player_id, mode)
    kept = None
    if key not in _ELSEWHERE and not NONCE.sent(uow, (player_id, mode)):
        kept = _NEXT.pop(key, None)
    if kept is None:
        drawn = _take(uow, player_id, mode)
    else:
        drawn = kept
        uow.expect(_TAKE_CACHED, {"p": player_id, "m": mode, "s": drawn.seed_id,
                                  "n": drawn.nonce, "cs": drawn.client_seed,
                                  "source": drawn.client_seed_source},
                   lambda: _ELSEWHERE.add(key))  # fmt: skip
    following = replace(drawn, nonce=drawn.nonce + 1)

    def committed() -> None:
        if len(_NEXT) >= _NEXT_MAX or len(_ELSEWHERE) >= _NEXT_MAX:
            _NEXT.clear()
            _ELSEWHERE.clear()
        _NEXT[key] = following

    uow.after_commit(committed)
    return drawn


def _forget(uow: UnitOfWork, player_id: int, mode: str) -> None:
    """The player's seeds change: what this process keeps of them goes at the commit."""
    key = (id(uow.vault), player_id, mode)

    def forgotten() -> None:
        _NEXT.pop(key, None)

    uow.after_commit(forgotten)


def _locked(uow: UnitOfWork, player_id: int, mode: str, columns: str) -> tuple[Any, ...]:
    """``columns`` of the player's state in a mode, its row locked until the commit."""
    row = uow.one(
        f"SELECT {columns} FROM fairness_states WHERE player_id = :p AND mode = :m"
        + uow.for_update,
        {"p": player_id, "m": mode},
    )
    if row is None:
        raise ServiceError("unknown_player", "the player has no fairness state")
    return tuple(row)


def take_shoe_nonce(uow: UnitOfWork, player_id: int, mode: str) -> Nonce:
    """The next nonce of the cut shoes' seed, for a shoe being cut, with the client seed now
    in force (a state made before the shoe seeds: the next nonce of its one seed)."""
    shoe_seed_id, client_seed, source = _locked(
        uow, player_id, mode, "shoe_seed_id, client_seed, client_seed_source"
    )
    if shoe_seed_id is None:
        return take_nonce(uow, player_id, mode)
    taken = uow.one(
        "UPDATE fairness_seeds SET nonces_used = COALESCE(nonces_used, 0) + 1 WHERE id = :id "
        "RETURNING server_seed, commitment, nonces_used",
        {"id": shoe_seed_id},
    )
    assert taken is not None
    sealed, committed, used = taken
    return Nonce(int(shoe_seed_id), open_seed(uow, sealed, committed), committed, client_seed,
                 int(used) - 1, source)  # fmt: skip


def _take(uow: UnitOfWork, player_id: int, mode: str) -> Nonce:
    row = NONCE.one(uow, (player_id, mode))
    if row is None:
        raise ServiceError("unknown_player", "the player has no fairness state")
    return Nonce(int(row[0]), open_seed(uow, row[1], row[2]), row[2], row[3], int(row[4]) - 1,
                 row[5])  # fmt: skip


def set_client_seed(uow: UnitOfWork, player_id: int, mode: str, client_seed: str) -> FairnessState:
    """The client seed of the next shuffles, set by the player after the commitment it will
    be used with was shown (a shoe being dealt keeps the one it began with)."""
    check_client_seed(client_seed)
    uow.run(
        "UPDATE fairness_states SET client_seed = :cs, client_seed_source = 'client' "
        "WHERE player_id = :p AND mode = :m",
        {"cs": client_seed, "p": player_id, "m": mode},
    )
    _forget(uow, player_id, mode)
    return state(uow, player_id, mode)


@dataclass(frozen=True, slots=True)
class Rotation:
    """What a rotation did: the retired seeds revealed now, and the state it committed."""

    # The fresh-shuffle tables' seed (None only for a state made before the shoe seeds
    # whose cut shoe is still dealt from it).
    revealed: RevealedSeed | None
    # The cut shoes' seed, revealed now; None while a cut shoe is still dealt from it (it is
    # revealed when the last one ends: ``pending``), or when the state had none.
    shoe_revealed: RevealedSeed | None
    state: FairnessState


def rotate(uow: UnitOfWork, player_id: int, mode: str) -> Rotation:
    """Retire the current server seeds and commit two new ones, with a placeholder client
    seed of the server's until the player sets theirs. Each old seed is revealed now, or
    when the last cut shoe still dealt from it ends."""
    old_id, used, old_shoe_id = _locked(uow, player_id, mode, "seed_id, next_nonce, shoe_seed_id")
    uow.run(
        "UPDATE fairness_seeds SET retired_us = :now, nonces_used = :used WHERE id = :id",
        {"now": uow.now, "used": used, "id": old_id},
    )
    if old_shoe_id is not None:
        # Its nonces were counted as the shoes were cut.
        uow.run("UPDATE fairness_seeds SET retired_us = :now WHERE id = :id",
                {"now": uow.now, "id": old_shoe_id})  # fmt: skip
    seed_id, server_seed, committed = new_seed(uow, player_id, mode)
    uow.run(
        "UPDATE fairness_states SET seed_id = :id, server_seed = :s, commitment = :c, "
        "next_nonce = 0, client_seed = :cs, client_seed_source = 'server', "
        "shoe_seed_id = :shoe WHERE player_id = :p AND mode = :m",
        {"id": seed_id, "s": server_seed, "c": committed, "cs": new_client_seed(),
         "shoe": new_seed(uow, player_id, mode, nonces_used=0)[0], "p": player_id,
         "m": mode},
    )  # fmt: skip
    _forget(uow, player_id, mode)
    revealed = reveal_if_done(uow, int(old_id))
    shoe_revealed = None if old_shoe_id is None else reveal_if_done(uow, int(old_shoe_id))
    return Rotation(revealed, shoe_revealed, state(uow, player_id, mode))


def rounds_left(cards_left: int) -> tuple[int, int]:
    """How many more coups a cut shoe deals with ``cards_left`` cards before its cut card:
    each takes 4 to 6 cards, and the coup under way when the cut card comes out is
    completed. A range: the exact number would tell the player something of the cards."""
    if cards_left <= 0:
        return 0, 0
    return -(-cards_left // 6), -(-cards_left // 4)


def pending(uow: UnitOfWork, player_id: int, mode: str) -> list[dict[str, Any]]:
    """The player's retired seeds not revealed yet: each waits for its cut shoes to end,
    each shoe with the cards left before its cut card and the coups those deal."""
    # From the player's shoes in play (one a cut-shoe table at most), not from their seeds.
    rows = uow.all(
        "SELECT s.commitment, sh.table_id, COALESCE(sh.cut_card, sh.cards) - sh.position "
        "FROM shoes sh JOIN fairness_seeds s ON s.id = sh.seed_id "
        "WHERE sh.player_id = :p AND sh.mode = :m AND sh.finished = 0 "
        "AND s.retired_us IS NOT NULL AND s.revealed_us IS NULL ORDER BY s.id, sh.table_id",
        {"p": player_id, "m": mode},
    )
    found: dict[str, list[dict[str, Any]]] = {}
    for committed, table_id, cards_left in rows:
        fewest, most = rounds_left(int(cards_left))
        found.setdefault(committed, []).append(
            {"table_id": table_id, "cards_left": max(0, int(cards_left)),
             "rounds_at_least": fewest, "rounds_at_most": most}
        )  # fmt: skip
    return [
        {"commitment": c, "tables": [s["table_id"] for s in shoes], "shoes": shoes}
        for c, shoes in found.items()
    ]


def reveal_if_done(uow: UnitOfWork, seed_id: int) -> RevealedSeed | None:
    """Reveal a retired seed once no cut shoe is dealt from it any more (None: one still is,
    or the seed is not retired, or it is revealed already)."""
    # The seed's row locked: a rotation retires it under the same lock before it counts
    # the shoes in play, so of a rotation and the end of the last shoe at once, whichever
    # comes second sees the other (read unlocked, each saw the other's change uncommitted
    # and neither revealed the seed, which nothing reveals later).
    row = uow.one(
        "SELECT mode, server_seed, commitment, created_us, nonces_used, retired_us, "
        "revealed_us FROM fairness_seeds WHERE id = :id" + uow.for_update,
        {"id": seed_id},
    )
    assert row is not None
    mode, sealed, committed, created_us, used, retired, revealed = row
    if retired is None or revealed is not None:
        return None
    in_play = uow.scalar(
        "SELECT COUNT(*) FROM shoes WHERE seed_id = :id AND finished = 0", {"id": seed_id}
    )
    if in_play:
        return None
    server_seed = open_seed(uow, sealed, committed)
    # Every shoe cut under it has ended (at its cut card): none was left undealt. Revealed,
    # the seed is public: it is kept as it is from now on.
    uow.run(
        "UPDATE fairness_seeds SET revealed_us = :now, undealt_shoes = '[]', server_seed = :seed "
        "WHERE id = :id",
        {"now": uow.now, "seed": server_seed, "id": seed_id},
    )
    return RevealedSeed(mode, server_seed, committed, int(created_us), uow.now, int(used or 0), ())


def revealed_seeds(
    uow: UnitOfWork, player_id: int, mode: str, limit: int = MAX_REVEALED
) -> list[RevealedSeed]:
    """The player's newest ``limit`` revealed seeds, oldest first: one indexed range of the
    player's own seeds (the nonces used were recorded at rotation), never a scan of rounds."""
    rows = uow.all(
        "SELECT s.server_seed, s.commitment, s.created_us, s.revealed_us, s.nonces_used, "
        "s.undealt_shoes FROM fairness_seeds s WHERE s.player_id = :p AND s.mode = :m "
        "AND s.seat_id IS NULL AND s.revealed_us IS NOT NULL ORDER BY s.id DESC LIMIT :n",
        {"p": player_id, "m": mode, "n": min(limit, MAX_REVEALED)},
    )
    return [
        RevealedSeed(mode, r[0], r[1], int(r[2]), int(r[3]), int(r[4] or 0), _undealt_of(r[5]))
        for r in reversed(rows)
    ]


# Where a commitment shown to a player is made: their own seeds of the mode, the seed of a
# seat whose pair they are in, a shared table's shoe (every bettor's, in either mode).
_SHOWN = (
    "SELECT created_us FROM fairness_seeds WHERE player_id = :p AND mode = :m "
    "AND seat_id IS NULL AND commitment = :c",
    "SELECT s.created_us FROM banked_seats st JOIN fairness_seeds s ON s.id = st.seed_id "
    "WHERE (st.player_id = :p OR st.banker_id = :p) AND s.mode = :m AND s.commitment = :c",
    "SELECT created_us FROM shared_shoes WHERE commitment = :c",
)


def shown_time(uow: UnitOfWork, player_id: int, committed: str, mode: str) -> int | None:
    """When a commitment the player is shown was made (microseconds), for their receipt of
    it in ``mode`` (``_SHOWN``); None: it is none of those."""
    for sql in _SHOWN:
        made = uow.scalar(sql, {"p": player_id, "m": mode, "c": committed})
        if made is not None:
            return int(made)
    return None
