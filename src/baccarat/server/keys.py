"""The casino's keys: the Ed25519 key that signs its records, the key that seals the server
seeds (``vault``), and where keys are kept.

A key comes from the settings (the environment: ``BACCARAT_SIGNING_KEY``,
``BACCARAT_RETIRED_PUBLIC_KEYS``, ``BACCARAT_SEED_KEY``); without one it is made once and kept
in ``DATA_DIR/keys`` (mode 0600), so that the embedded default works offline and keeps its
keys across restarts. Several processes that start at once agree on the one file: each
writes its own and links it into place, and the first link wins.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from baccarat.fairness.signing import PublicKey, Signer, new_private_key_pem, private_key
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.history import iso_time
from baccarat.server.seeds import FairnessState
from baccarat.server.settings import Settings
from baccarat.server.vault import KEYS_DIR, FolderVault, SeedVault, load_or_create, write_secret

SIGNING_FILE = "signing-key.pem"
RETIRED_FILE = "retired-public-keys"


def keys_dir(data_dir: Path) -> Path:
    return Path(data_dir) / KEYS_DIR


def _retired_in(folder: Path) -> list[str]:
    try:
        text = (folder / RETIRED_FILE).read_text(encoding="ascii")
    except FileNotFoundError:
        return []
    return [line.strip() for line in text.splitlines() if line.strip()]


def seed_vault(settings: Settings) -> SeedVault | FolderVault:
    """The key that seals the server seeds: the settings', else the data folder's (read or
    made when a seed is first sealed or opened)."""
    if settings.seed_key:
        return SeedVault.from_text(settings.seed_key)
    return FolderVault(settings.data_dir)


def signer(settings: Settings) -> Signer:
    """The signing key of these settings (made in the data directory when none is set), with
    every retired public key (the settings' and the data directory's)."""
    folder = keys_dir(settings.data_dir)
    text = settings.signing_key or load_or_create(folder / SIGNING_FILE, new_private_key_pem)
    return Signer(private_key(text), [*settings.retired_public_keys, *_retired_in(folder)])


def rotate_signing_key(data_dir: Path) -> tuple[PublicKey, Signer]:
    """A new signing key in the data directory; the old one's public key is kept listed."""
    folder = keys_dir(data_dir)
    path = folder / SIGNING_FILE
    old = Signer(private_key(load_or_create(path, new_private_key_pem)))
    with (folder / RETIRED_FILE).open("a", encoding="ascii") as retired:
        retired.write(old.public_key + "\n")
    fresh = path.with_name(f".{path.name}.new")
    write_secret(fresh, new_private_key_pem())
    os.replace(fresh, path)
    new = Signer(private_key(path.read_text(encoding="ascii")), _retired_in(folder))
    return old.keys[0], new


def signed_state(uow: UnitOfWork, signer: Signer, state: FairnessState) -> dict[str, Any]:
    """A fairness state as shown to its player: the commitment with the time it was made
    and the casino's signature of both (what the browser keeps as a receipt)."""
    created = uow.scalar("SELECT created_us FROM fairness_seeds WHERE id = :id",
                         {"id": state.seed_id})  # fmt: skip
    time = iso_time(int(created))
    return state.to_json() | signer.sign_commitment(state.commitment, state.mode, time)
