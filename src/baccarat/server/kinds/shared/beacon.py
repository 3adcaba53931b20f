"""The public randomness beacon of the shared tables: a small port, and drand's HTTP API.

``Beacon.chain`` is the chain (its hash, public key, period and genesis) and
``Beacon.fetch(round)`` a round's signature, checked (``fairness.beacon.verify_signature``),
or None while the round is not published (or the beacon cannot be reached: the table
waits, it never deals without it). ``from_settings`` gives the configured beacon, or None
(the embedded default: the tables deal offline from the committed seed alone).

drand's API: ``GET {url}/{chain}/info`` (``public_key``, ``period``, ``genesis_time``,
``hash``, ``schemeID``) and ``GET {url}/{chain}/public/{round}`` (``round``,
``randomness``, ``signature``); a round not published yet is not found there.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

from baccarat.fairness.beacon import KNOWN_CHAINS, SCHEME, Chain, randomness, verify_signature
from baccarat.server.settings import Settings

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("baccarat.server.kinds.shared")
TIMEOUT_S = 5.0


class BeaconError(Exception):
    """The beacon answered what a beacon must not (a wrong key, a bad signature)."""


class Beacon(Protocol):
    chain: Chain

    async def fetch(self, round_number: int) -> str | None:
        """The round's signature (hex), verified; None while it is not to be had."""
        ...


class DrandHttp:
    """A drand chain over its HTTP API, its public key pinned (by the settings, or the
    known chain's): an endpoint that serves another key is refused."""

    def __init__(self, url: str, chain: Chain):
        self.url = url.rstrip("/")
        self.chain = chain
        self._client: httpx.AsyncClient | None = None

    @classmethod
    async def connect(cls, url: str, chain_hash: str, public_key: str | None) -> DrandHttp:
        """The chain's info from the endpoint, checked against the pinned key."""
        import httpx  # (imported by a table with a beacon only: 40 ms a start otherwise)

        known = KNOWN_CHAINS.get(chain_hash)
        pinned = public_key or (known.public_key if known else None)
        async with httpx.AsyncClient(timeout=TIMEOUT_S) as client:
            answer = await client.get(f"{url.rstrip('/')}/{chain_hash}/info")
            answer.raise_for_status()
            info: dict[str, Any] = answer.json()
        if info.get("schemeID") != SCHEME:
            raise BeaconError(f"chain {chain_hash} is {info.get('schemeID')}, not {SCHEME}")
        if pinned is not None and info.get("public_key") != pinned:
            raise BeaconError(f"the beacon at {url} serves another public key for {chain_hash}")
        chain = Chain(
            hash=chain_hash,
            public_key=str(info["public_key"]),
            period=int(info["period"]),
            genesis=int(info["genesis_time"]),
        )
        return cls(url, chain)

    async def fetch(self, round_number: int) -> str | None:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(timeout=TIMEOUT_S)
        try:
            answer = await self._client.get(f"{self.url}/{self.chain.hash}/public/{round_number}")
        except httpx.HTTPError as error:
            log.warning("beacon round %s: %s (the table waits)", round_number, error)
            return None
        if answer.status_code != 200:
            return None  # not published yet (drand answers 404 or 425)
        body = answer.json()
        signature = str(body.get("signature", ""))
        if int(body.get("round", -1)) != round_number or not await asyncio.to_thread(
            verify_signature, self.chain.public_key, round_number, signature
        ):
            raise BeaconError(f"beacon round {round_number}: the signature does not verify")
        if body.get("randomness") not in (None, randomness(signature)):
            raise BeaconError(f"beacon round {round_number}: randomness is not sha256(signature)")
        return signature

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


async def from_settings(settings: Settings) -> DrandHttp | None:
    """The configured beacon (None: the tables deal from the committed seed alone)."""
    if not settings.beacon_url:
        return None
    return await DrandHttp.connect(
        settings.beacon_url, settings.beacon_chain, settings.beacon_public_key
    )
