"""The browser verifier ships with the package (pyproject package-data)."""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "baccarat"


def test_every_verifier_file_is_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["baccarat"]
    files = ["web/verify.html", "web/js/fair.js", "web/js/verify-page.js", "web/css/verify.css",
             "web/vendor/noble-curves/bls12-381.js"]  # fmt: skip
    for name in files:
        assert (PACKAGE / name).is_file(), name
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name


def _without_help_links(path: Path) -> str:
    """A file's text; in a catalog, without the help organisations' addresses (links the
    player may follow from the responsible-gaming page, never loaded by a page)."""
    text = path.read_text()
    if "vendor" in path.parts:
        # A vendored library's licence banner names its home page, and its comments the
        # papers it follows; they load nothing.
        text = re.sub(r"/\*!.*?\*/", "", text, flags=re.DOTALL)
        text = re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE)
    if path.suffix != ".json":
        return text
    catalog = json.loads(text)
    links = [key for key in catalog if key.startswith("rg.help") and key.endswith("_url")]
    assert all(catalog[key].startswith("https://") for key in links), path
    return json.dumps({k: v for k, v in catalog.items() if k not in links})


def test_the_page_loads_nothing_from_elsewhere() -> None:
    page = (PACKAGE / "web" / "verify.html").read_text()
    # Its own script and styles only, and requests to its own origin only (the casino's
    # published keys; it fetches no catalog).
    assert "connect-src 'self'" in page and "script-src 'self'" in page
    assert "connect-src 'none'" not in page and "default-src 'none'" in page
    for text in [page, *map(_without_help_links, (PACKAGE / "web").rglob("*.[jc]s*"))]:
        assert "http://" not in text and "https://" not in text


def test_the_pages_strings_are_the_catalogs_in_every_language() -> None:
    from .page_strings import LANGUAGES, PAGE, embedded, strings, text

    assert embedded(PAGE.read_text(encoding="utf-8")) == text()
    copied = strings()
    english = set(copied["en"])
    assert all(set(copied[lang]) == english for lang in LANGUAGES)
    # Every key the page's script asks for is there (statuses, voids, kinds of findings).
    script = (PACKAGE / "web" / "js" / "verify-page.js").read_text()
    wanted = set(re.findall(r't\("(verify\.[a-z_]+)"', script))
    wanted |= {f"verify.status_{s}" for s in ("verified", "unverifiable", "differs")}
    wanted |= {f"verify.void_{r}" for r in ("before_the_result", "after_the_result", "after_a_win")}
    kinds = ("nonce_gap", "nonces_used", "undealt_shoe", "unchecked", "balance",
             "server_client_seed", "table_log", "receipt")  # fmt: skip
    wanted |= {f"verify.kind_{k}" for k in kinds}
    # Why the casino's keys were not fetched.
    wanted |= {f"verify.keys_why_{r}" for r in ("file", "failed")}
    assert wanted <= english, wanted - english
