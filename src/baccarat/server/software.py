"""Software verification: the release carries a manifest of the SHA-256 of every file of the
installed package (``MANIFEST.sha256``, in ``sha256sum`` format, written by ``baccarat admin
manifest`` when the release is built); ``verify`` recomputes them and names every file that
changed, is missing or was added. The server checks at start and records the result as a
significant event; the back office shows the software id (the version and the first 16 hex
digits of the manifest's own SHA-256) and the last result."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baccarat import __version__
from baccarat.server import significant
from baccarat.server.db.uow import UnitOfWork

MANIFEST = "MANIFEST.sha256"


def package_root() -> Path:
    return Path(__file__).resolve().parents[1]


def _files(root: Path) -> list[str]:
    """The package's files (relative, sorted), without byte code and the manifest."""
    return sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
        and path.name != MANIFEST
    )  # fmt: skip


def digests(root: Path) -> dict[str, str]:
    return {name: hashlib.sha256((root / name).read_bytes()).hexdigest() for name in _files(root)}


def manifest_text(root: Path) -> str:
    return "".join(f"{digest}  {name}\n" for name, digest in digests(root).items())


def write_manifest(root: Path | None = None) -> Path:
    """Write the package's manifest into it (a release step); its path."""
    root = root or package_root()
    target = root / MANIFEST
    target.write_text(manifest_text(root), encoding="utf-8")
    return target


@dataclass(frozen=True)
class Verification:
    status: str  # "ok", "changed" or "no_manifest"
    software_id: str
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "software_id": self.software_id, "version": __version__,
                "changed": self.changed, "missing": self.missing, "added": self.added}  # fmt: skip


def verify(root: Path | None = None, manifest: Path | None = None) -> Verification:
    """Recompute every file's SHA-256 and compare it with the manifest."""
    root = root or package_root()
    manifest = manifest or root / MANIFEST
    if not manifest.is_file():
        return Verification("no_manifest", f"{__version__}+unverified")
    text = manifest.read_text(encoding="utf-8")
    software_id = f"{__version__}+{hashlib.sha256(text.encode()).hexdigest()[:16]}"
    expected: dict[str, str] = {}
    for line in text.splitlines():
        digest, _, name = line.partition("  ")
        if name:
            expected[name] = digest
    found = digests(root)
    changed = sorted(n for n in expected.keys() & found.keys() if expected[n] != found[n])
    missing = sorted(expected.keys() - found.keys())
    added = sorted(found.keys() - expected.keys())
    status = "ok" if not (changed or missing or added) else "changed"
    return Verification(status, software_id, changed, missing, added)


def record(uow: UnitOfWork, result: Verification) -> None:
    """The result as a significant event (at most 50 names of each kind)."""
    significant.record(uow, "software_verification", "system", f"software:{result.software_id}",
                  status=result.status, changed=result.changed[:50],
                  missing=result.missing[:50], added=result.added[:50])  # fmt: skip


def last(uow: UnitOfWork) -> dict[str, Any] | None:
    found = significant.listed(uow, kind="software_verification", limit=1)
    return found[0].to_json() if found else None
