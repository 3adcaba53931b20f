"""The server seeds at rest: sealed with AES-256-GCM under a key the database never holds.

A seed is stored as ``aesgcm1:<key id>:<base64 of nonce and ciphertext>``: a fresh 12-byte
nonce, the 32 seed bytes encrypted and authenticated, with the seed's commitment as the
associated data (a sealed seed moved to another row does not open). The key id (the first
16 hex characters of the key's sha256) names the key, so a server given the wrong key says
so instead of dealing from garbage; an opened seed must hash to its commitment.

The key comes from ``BACCARAT_SEED_KEY`` (base64 of 32 bytes; ``baccarat admin seed-key
new`` makes one) or, without it, is made once in ``DATA_DIR/keys/seed-key``. Seeds are
opened only to deal from them and to reveal them; a revealed seed is public and is kept as
it is.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from baccarat.fairness import commitment as commitment_of

KEYS_DIR = "keys"
SEED_FILE = "seed-key"
PREFIX = "aesgcm1:"
# Seeds kept opened at most (a seed is dealt from until it is rotated; a full cache is emptied).
OPENED_MAX = 4096


class SeedKeyError(RuntimeError):
    """No seed key, a wrong one, or a sealed seed that does not open."""


def write_secret(path: Path, text: str) -> None:
    """A new file readable by its owner only, written through to the disk."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)


def load_or_create(path: Path, make: Callable[[], str]) -> str:
    """The file's text; made by ``make`` (readable by its owner only) when it is not there.
    Processes that start at once agree: each writes its own and links it into place, and
    the first link wins."""
    try:
        return path.read_text(encoding="ascii")
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    mine = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    write_secret(mine, make())
    try:
        os.link(mine, path)
    except FileExistsError:
        pass  # another process made it first: theirs is the key
    finally:
        mine.unlink()
    return path.read_text(encoding="ascii")


def new_key_text() -> str:
    return base64.b64encode(secrets.token_bytes(32)).decode("ascii") + "\n"


def is_sealed(stored: str) -> bool:
    return stored.startswith(PREFIX)


class SeedVault:
    """Seals and opens server seeds with one AES-256 key."""

    def __init__(self, key: bytes):
        if len(key) != 32:
            raise SeedKeyError(f"a seed key is 32 bytes, not {len(key)}")
        self._aead = AESGCM(key)
        self.key_id = hashlib.sha256(key).hexdigest()[:16]
        # Seeds opened and checked, by their sealed text: every deal of a seed opens it.
        self._opened: dict[tuple[str, str], str] = {}

    @classmethod
    def from_text(cls, text: str) -> SeedVault:
        try:
            key = base64.b64decode(text.strip(), validate=True)
        except (binascii.Error, ValueError):
            raise SeedKeyError("the seed key is not base64 (32 bytes)") from None
        return cls(key)

    @classmethod
    def in_folder(cls, data_dir: Path) -> SeedVault:
        """The data folder's key, made there the first time."""
        return cls.from_text(load_or_create(Path(data_dir) / KEYS_DIR / SEED_FILE, new_key_text))

    def seal(self, seed: str, commitment: str) -> str:
        nonce = secrets.token_bytes(12)
        sealed = self._aead.encrypt(nonce, bytes.fromhex(seed), commitment.encode("ascii"))
        return f"{PREFIX}{self.key_id}:{base64.b64encode(nonce + sealed).decode('ascii')}"

    def open(self, stored: str, commitment: str) -> str:
        """The seed of a sealed value, checked against its commitment."""
        seed = self._opened.get((stored, commitment))
        if seed is None:
            seed = self._open(stored, commitment)
            if len(self._opened) >= OPENED_MAX:
                self._opened.clear()
            self._opened[stored, commitment] = seed
        return seed

    def _open(self, stored: str, commitment: str) -> str:
        if not is_sealed(stored):
            raise SeedKeyError("a server seed is stored unsealed: run `baccarat admin migrate`")
        key_id, _, text = stored[len(PREFIX) :].partition(":")
        if key_id != self.key_id:
            raise SeedKeyError(
                f"the server seeds are sealed with seed key {key_id}, this server has "
                f"{self.key_id}: set BACCARAT_SEED_KEY to the key they were sealed with"
            )
        raw = base64.b64decode(text)
        try:
            seed = self._aead.decrypt(raw[:12], raw[12:], commitment.encode("ascii")).hex()
        except InvalidTag:
            raise SeedKeyError("a sealed server seed does not open: it was changed") from None
        if commitment_of(seed) != commitment:
            raise SeedKeyError("a sealed server seed does not match its commitment")
        return seed


class NoVault:
    """Where no seed key was given (a PostgreSQL database opened without settings)."""

    def seal(self, seed: str, commitment: str) -> str:
        raise SeedKeyError(self.why())

    def open(self, stored: str, commitment: str) -> str:
        raise SeedKeyError(self.why())

    @staticmethod
    def why() -> str:
        return "no key for the server seeds: set BACCARAT_SEED_KEY (docs/fairness.md, Keys)"


class FolderVault:
    """The key of a folder, read (or made) the first time a seed is sealed or opened."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._vault: SeedVault | None = None

    def _get(self) -> SeedVault:
        if self._vault is None:
            self._vault = SeedVault.in_folder(self.folder)
        return self._vault

    def seal(self, seed: str, commitment: str) -> str:
        return self._get().seal(seed, commitment)

    def open(self, stored: str, commitment: str) -> str:
        return self._get().open(stored, commitment)


Vault = SeedVault | FolderVault | NoVault


def default_vault(database_file: Path | None) -> Vault:
    """The vault of a database opened without one (tests, tools): $BACCARAT_SEED_KEY, else
    a database file's folder keeps the key (the embedded default's ``data/``); else (a
    database server) none."""
    given = os.environ.get("BACCARAT_SEED_KEY")
    if given:
        return SeedVault.from_text(given)
    if database_file is not None:
        return FolderVault(database_file.parent)
    return NoVault()
