"""Provably fair shuffles: committed server seeds, client seeds, nonces, verifiable orders."""

from .derive import (
    SEED_BYTES,
    FairnessError,
    FairRandom,
    byte_stream,
    commitment,
    fair_shoe,
    lightning,
    lightning_stream,
    new_client_seed,
    new_server_seed,
    server_seed_bytes,
    shoe_from_order,
    shuffled_order,
)
from .fast import fast_order

__all__ = [
    "SEED_BYTES",
    "FairRandom",
    "FairnessError",
    "byte_stream",
    "commitment",
    "fair_shoe",
    "fast_order",
    "lightning",
    "lightning_stream",
    "new_client_seed",
    "new_server_seed",
    "server_seed_bytes",
    "shoe_from_order",
    "shuffled_order",
]
