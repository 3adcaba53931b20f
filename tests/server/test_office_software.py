"""Software verification: the manifest of the package's files, ``baccarat admin
verify-install`` (exit 1 and the names of changed files), the check at start as a
significant event, and the software id in the back office."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from baccarat.cli import main
from baccarat.server import software

from ..harness import Api
from .office import logged_in


def test_a_changed_missing_or_added_file_is_named(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    shutil.copytree(software.package_root() / "core", root / "core",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    software.write_manifest(root)
    assert software.verify(root).ok
    (root / "core" / "bets.py").write_text("# changed\n")
    (root / "core" / "cards.py").unlink()
    (root / "core" / "extra.py").write_text("")
    (root / "core" / "__pycache__").mkdir()
    (root / "core" / "__pycache__" / "x.pyc").write_bytes(b"not checked")
    result = software.verify(root)
    assert result.status == "changed"
    assert (result.changed, result.missing, result.added) == (
        ["core/bets.py"], ["core/cards.py"], ["core/extra.py"]
    )  # fmt: skip
    assert software.verify(tmp_path / "nowhere").status == "no_manifest"


def test_verify_install_exits_1_with_the_names_of_changed_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "MANIFEST.sha256"
    manifest.write_text(software.manifest_text(software.package_root()))
    assert main(["admin", "verify-install", "--manifest", str(manifest)]) == 0
    assert "every file matches the manifest" in capsys.readouterr().out
    lines = manifest.read_text().splitlines()
    name = next(line.split("  ")[1] for line in lines if line.endswith("core/rules.py"))
    manifest.write_text("\n".join(
        ("0" * 64 + "  " + name) if line.endswith(name) else line for line in lines
    ) + "\n")  # fmt: skip
    assert main(["admin", "verify-install", "--manifest", str(manifest)]) == 1
    out = capsys.readouterr().out
    assert f"changed: {name}" in out and "DIFFERS" in out
    assert main(["admin", "verify-install", "--manifest", str(manifest), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["changed"] == [name]


@pytest.mark.anyio
async def test_the_server_records_its_check_at_start_and_the_office_shows_it(api: Api) -> None:
    viewer = await logged_in(api, "vic", "viewer")
    shown = (await api.client.get("/admin/api/software", headers=viewer.headers)).json()
    # This tree has no release manifest: the check says so, as the event does.
    assert shown["software_id"] == software.verify().software_id
    assert shown["last"]["kind"] == "software_verification"
    assert shown["last"]["details"]["status"] == software.verify().status
