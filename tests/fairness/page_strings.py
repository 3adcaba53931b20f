"""The verifier page's strings: copied from the catalogs (i18n/*.json) into verify.html,
which fetches nothing. ``python -m tests.fairness.page_strings`` writes the copy; the tests
check that it is the catalogs' text."""

from __future__ import annotations

import json
import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "src" / "baccarat" / "web"
PAGE = WEB / "verify.html"
LANGUAGES = ("en", "de", "da", "sv")
# Besides every verify.* key: the header's and the coup's words.
SHARED = ("app.title", "nav.label", "nav.lobby", "nav.history", "lang.label", "spot.player",
          "spot.banker", "marker.tie", "result.wins")  # fmt: skip
BLOCK = re.compile(
    r'(<script type="application/json" id="verify-strings">\n)(.*?)(\n  </script>)', re.S
)


def strings() -> dict[str, dict[str, str]]:
    out = {}
    for lang in LANGUAGES:
        catalog = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
        keys = [*SHARED, *sorted(k for k in catalog if k.startswith("verify."))]
        out[lang] = {key: catalog[key] for key in keys if key in catalog}
    return out


def embedded(page: str) -> str:
    found = BLOCK.search(page)
    assert found is not None, "verify.html has no verify-strings block"
    return found.group(2)


def text() -> str:
    # No "</" may appear inside a script element: escape the slash of any such text.
    return json.dumps(strings(), ensure_ascii=False, indent=1).replace("</", "<\\/")


if __name__ == "__main__":
    page = PAGE.read_text(encoding="utf-8")
    PAGE.write_text(BLOCK.sub(lambda m: m.group(1) + text() + m.group(3), page), encoding="utf-8")
