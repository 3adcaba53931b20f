"""A public randomness beacon's rounds (drand) and a shared table's hash-chained log.

drand's chains of the scheme ``bls-unchained-g1-rfc9380`` (quicknet) sign each round
number: the signature is a BLS12-381 point on G1 (48 bytes compressed) of the message
``sha256(round as 8 big-endian bytes)``, hashed to G1 with the domain separation tag
``DST``, under the chain's public key on G2 (96 bytes compressed); the round's randomness is
``sha256(signature)``. Round ``r`` is published at ``genesis + (r - 1) * period``.

A shared table's shoe takes the randomness of a round named in the table's log before the
round was published (docs/fairness.md, "Shared tables"): the shoe's client seed is
``TABLE/N/<randomness>``. The log is a chain of entries, each the canonical JSON of its
fields with ``prev``, the hash of the entry before (``GENESIS`` for the first), and
``hash``, the sha256 of the canonical JSON of the entry without ``hash``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import py_arkworks_bls12381 as bls

DST = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
SCHEME = "bls-unchained-g1-rfc9380"
GENESIS = "0" * 64  # the ``prev`` of a table's first log entry
LOG_FORMAT = "baccarat-table-log/1"


@dataclass(frozen=True, slots=True)
class Chain:
    """A beacon chain: its hash (its name in drand's API), public key, period, genesis."""

    hash: str
    public_key: str
    period: int
    genesis: int

    def round_at(self, seconds: float) -> int:
        """The latest round published at this time (0 before the genesis)."""
        if seconds < self.genesis:
            return 0
        return int((seconds - self.genesis) // self.period) + 1

    def time_of(self, round_number: int) -> int:
        """When the round is published (seconds since the epoch)."""
        return self.genesis + (round_number - 1) * self.period


# drand's League of Entropy mainnet chain with 3 s rounds (quicknet).
QUICKNET = Chain(
    hash="52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    public_key=(
        "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5"
        "776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a"
        "4bc09e76eae8991ef5ece45a"
    ),
    period=3,
    genesis=1692803367,
)
KNOWN_CHAINS = {QUICKNET.hash: QUICKNET}


def round_message(round_number: int) -> bytes:
    return hashlib.sha256(round_number.to_bytes(8, "big")).digest()


def randomness(signature: str) -> str:
    """The round's randomness: sha256 of the signature's bytes, 64 hex characters."""
    return hashlib.sha256(bytes.fromhex(signature)).hexdigest()


@functools.lru_cache(maxsize=1024)
def verify_signature(public_key: str, round_number: int, signature: str) -> bool:
    """Whether ``signature`` (hex) is the chain's BLS signature of the round (both points
    decoded with their subgroup checks; e(sig, g2) = e(H(round), public key)); a round that
    is not 0 to 2**64 - 1 has none. The point at infinity is neither a key nor a signature
    (with both, the pairing holds for every round): refused, as IETF BLS's KeyValidate and
    the browser's verifier (noble) refuse it."""
    try:
        sig = bls.G1Point.from_compressed_bytes(bytes.fromhex(signature))
        key = bls.G2Point.from_compressed_bytes(bytes.fromhex(public_key))
        message = round_message(round_number)
    except (ValueError, TypeError, OverflowError, Exception):
        return False
    if sig == bls.G1Point.identity() or key == bls.G2Point.identity():
        return False
    point = bls.G1Point.hash_to_curve(message, DST)
    return bool(bls.GT.pairing_check([sig, point], [bls.G2Point(), -key]))


def sign(secret: int, round_number: int) -> str:
    """A round's signature with the secret scalar of a chain (a stand-in beacon, tests)."""
    point = bls.G1Point.hash_to_curve(round_message(round_number), DST) * bls.Scalar(secret)
    return bytes(point.to_compressed_bytes()).hex()


def public_key(secret: int) -> str:
    return bytes((bls.G2Point() * bls.Scalar(secret)).to_compressed_bytes()).hex()


def shoe_client_seed(base: str, value: str | None) -> str:
    """A shared shoe's client seed: ``TABLE/N``, and ``/<randomness>`` with a beacon."""
    return base if value is None else f"{base}/{value}"


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(entry: Mapping[str, Any]) -> str:
    """The hash of a log entry: sha256 of its canonical JSON without ``hash``."""
    body = {k: v for k, v in entry.items() if k != "hash"}
    return hashlib.sha256(canonical(body).encode()).hexdigest()


def chain_entry(fields: Mapping[str, Any], prev: str) -> dict[str, Any]:
    """A new log entry after the one whose hash is ``prev``."""
    entry = {"format": LOG_FORMAT, **fields, "prev": prev}
    return entry | {"hash": entry_hash(entry)}


def check_log(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """What is wrong with consecutive log entries: a hash that is not the entry's, a
    ``prev`` that is not the hash of the entry before, a ``seq`` out of order."""
    problems = []
    for index, entry in enumerate(entries):
        seq = entry.get("seq")
        if entry.get("hash") != entry_hash(entry):
            problems.append(f"log entry {seq}: its hash is not the hash of its content")
        if index and entry.get("prev") != entries[index - 1].get("hash"):
            problems.append(f"log entry {seq}: prev is not the hash of the entry before it")
        if index and seq != int(entries[index - 1].get("seq") or 0) + 1:
            problems.append(
                f"log entry {seq}: does not follow entry {entries[index - 1].get('seq')}"
            )
    return problems
