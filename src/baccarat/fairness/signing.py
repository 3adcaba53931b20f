"""Ed25519 signatures of the casino's records, and the receipts a player keeps.

The server signs every export line (``baccarat-history/1``) and every commitment it shows.
What is signed is the *canonical JSON* of a value: keys sorted, no whitespace, UTF-8, no
ASCII escapes (``json.dumps(value, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``); the browser's verifier (``web/js/verify-page.js``) builds the same
bytes. An export line is signed without its own ``signature`` and ``key_id`` keys; a
commitment as ``{"commitment", "mode", "time", "type": "baccarat-commitment/1"}``.

A public key is the 32 raw bytes of the Ed25519 key in standard base64; its id is the first
16 hex characters of their sha256. A signature is the 64 raw bytes in standard base64.

A receipt is what the browser kept of a commitment shown before play: the commitment, its
mode and time, the casino's signature of them and the key's id (and, for the player, the
table it was shown at and when). ``baccarat-receipts/1`` holds the receipts and the public
keys the casino published when they were kept (docs/fairness.md).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

SIGNATURE_FIELDS = ("signature", "key_id")
COMMITMENT_TYPE = "baccarat-commitment/1"
RECEIPTS_FORMAT = "baccarat-receipts/1"


class SigningError(ValueError):
    """A key, a key list or a receipts file that cannot be read."""


def canonical(value: Any) -> bytes:
    """The bytes that are signed: sorted keys, no whitespace, UTF-8."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")


def line_message(line: Mapping[str, Any]) -> bytes:
    """What the signature of an export line covers: the line without its signature."""
    return canonical({k: v for k, v in line.items() if k not in SIGNATURE_FIELDS})


def commitment_message(commitment: str, mode: str, time: str) -> bytes:
    """What the signature of a commitment covers."""
    return canonical(
        {"commitment": commitment, "mode": mode, "time": time, "type": COMMITMENT_TYPE}
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str, size: int, what: str) -> bytes:
    try:
        data = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise SigningError(f"{what} is not base64") from None
    if len(data) != size:
        raise SigningError(f"{what} must be {size} bytes, not {len(data)}")
    return data


def public_bytes(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public: bytes) -> str:
    """The id of a public key: the first 16 hex characters of the sha256 of its 32 bytes."""
    return hashlib.sha256(public).hexdigest()[:16]


def private_key(text: str) -> Ed25519PrivateKey:
    """A private key from a PEM (PKCS#8) or from its 32 raw bytes in base64."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_private_key(text.encode(), password=None)
        except (ValueError, TypeError):
            raise SigningError("the signing key is not a readable PEM private key") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise SigningError("the signing key is not an Ed25519 key")
        return key
    return Ed25519PrivateKey.from_private_bytes(_unb64(text, 32, "the signing key"))


def new_private_key_pem() -> str:
    """A new Ed25519 private key, as PKCS#8 PEM."""
    return (
        Ed25519PrivateKey.generate()
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode("ascii")
    )


@dataclass(frozen=True)
class PublicKey:
    key_id: str
    public_key: str  # base64 of the 32 raw bytes
    current: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"key_id": self.key_id, "public_key": self.public_key, "current": self.current}

    @classmethod
    def of(cls, text: str, current: bool = False) -> PublicKey:
        raw = _unb64(text, 32, "a public key")
        return cls(key_id(raw), _b64(raw), current)


class Signer:
    """The casino's current signing key, and the public keys it publishes (the current one
    first, then the retired ones, so that old records still verify)."""

    def __init__(self, key: Ed25519PrivateKey, retired: Iterable[str] = ()):
        self._key = key
        raw = public_bytes(key.public_key())
        self.key_id = key_id(raw)
        self.public_key = _b64(raw)
        keys = [PublicKey(self.key_id, self.public_key, True)]
        for text in retired:
            old = PublicKey.of(text)
            if all(k.key_id != old.key_id for k in keys):
                keys.append(old)
        self.keys: tuple[PublicKey, ...] = tuple(keys)

    def sign(self, message: bytes) -> str:
        return _b64(self._key.sign(message))

    def sign_line(self, line: Mapping[str, Any]) -> dict[str, Any]:
        """The export line with its signature and the key's id."""
        return {**line, "signature": self.sign(line_message(line)), "key_id": self.key_id}

    def sign_commitment(self, commitment: str, mode: str, time: str) -> dict[str, str]:
        """What the server shows with a commitment: its time, signature and key id."""
        message = commitment_message(commitment, mode, time)
        return {"time": time, "signature": self.sign(message), "key_id": self.key_id}

    def keys_json(self) -> list[dict[str, Any]]:
        return [k.to_json() for k in self.keys]


class PublicKeys:
    """The public keys a verifier trusts, by id."""

    def __init__(self, keys: Iterable[PublicKey]):
        self.by_id: dict[str, Ed25519PublicKey] = {}
        for k in keys:
            raw = _unb64(k.public_key, 32, "a public key")
            self.by_id[key_id(raw)] = Ed25519PublicKey.from_public_bytes(raw)

    @property
    def ids(self) -> list[str]:
        return sorted(self.by_id)

    def check(self, signature: Any, key: Any, message: bytes) -> str | None:
        """None when ``signature`` is the key's signature of ``message``; else why not."""
        if not isinstance(signature, str) or not signature:
            return "missing"
        if not isinstance(key, str) or key not in self.by_id:
            return "unknown key"
        try:
            raw = _unb64(signature, 64, "the signature")
            self.by_id[key].verify(raw, message)
        except (SigningError, InvalidSignature):
            return "invalid"
        return None

    def __bool__(self) -> bool:
        return bool(self.by_id)


def parse_keys(data: Any) -> list[PublicKey]:
    """Public keys from what the casino publishes: the answer of ``GET /api/fairness``, a
    receipts file (both have ``signing_keys``), or a list of ``{"public_key": ...}`` or of
    base64 texts."""
    if isinstance(data, dict):
        data = data.get("signing_keys")
    if not isinstance(data, list):
        raise SigningError("no signing_keys: give the casino's public keys as a list")
    keys = []
    for item in data:
        text = item.get("public_key") if isinstance(item, dict) else item
        if not isinstance(text, str):
            raise SigningError("each public key is base64 text (32 bytes)")
        keys.append(PublicKey.of(text))
    return keys


@dataclass(frozen=True)
class Receipt:
    """A commitment shown before play, as the browser kept it."""

    index: int  # from 1, in the file
    commitment: str
    mode: str | None
    time: str
    signature: str | None
    key_id: str | None
    table: str | None = None
    seen: str | None = None

    @property
    def message(self) -> bytes:
        return commitment_message(self.commitment, self.mode or "", self.time)


def parse_receipts(data: Any) -> tuple[list[Receipt], list[PublicKey]]:
    """The receipts of a ``baccarat-receipts/1`` file, and the public keys it holds."""
    if not isinstance(data, dict) or data.get("format") != RECEIPTS_FORMAT:
        raise SigningError(f"not a receipts file: its format must be {RECEIPTS_FORMAT!r}")
    items = data.get("receipts")
    if not isinstance(items, list):
        raise SigningError("receipts must be a list")
    receipts = []
    for index, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise SigningError(f"receipt {index} must be an object")
        commit, time = item.get("commitment"), item.get("time")
        if not isinstance(commit, str) or not isinstance(time, str):
            raise SigningError(f"receipt {index} needs a commitment and a time")

        def text(key: str, item: dict[str, Any] = item) -> str | None:
            value = item.get(key)
            return value if isinstance(value, str) else None

        signed = (text("signature"), text("key_id"))
        receipts.append(Receipt(index, commit, text("mode"), time, *signed, text("table"),
                                text("seen")))  # fmt: skip
    keys = parse_keys(data) if data.get("signing_keys") is not None else []
    return receipts, keys
