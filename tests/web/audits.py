"""What the browser tests audit on a page: axe-core's WCAG 2.1 A and AA rules, and the words
it shows that are English where the page speaks another language.

axe-core comes from the npm registry (package-lock.json, beside Biome): the tests put
node_modules/axe-core/axe.min.js into the page; nothing is fetched from elsewhere.

A word counts as English when the English catalogs have it and the page's language's do not.
A catalog value that is the same as the English one is allowed only for the names the
catalog keeps on purpose (its ``i18n.kept`` entry, the back office's ``office.kept``:
Baccarat, Punto Banco, Nonce, GGR...)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..harness import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SIZES = [(1280, 720), (390, 844)]


def axe(page: Any, source: Path) -> list[str]:
    """axe-core's violations of the WCAG 2.1 A and AA rules on the page as it is now."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(source))
    found: list[str] = page.evaluate(
        """tags => axe.run(document, {runOnly: {type: 'tag', values: tags},
                                     resultTypes: ['violations']})
            .then(r => r.violations.map(v => v.id + ': '
                + v.nodes.map(n => n.target.join(' ')).join(', ')))""",
        TAGS,
    )
    return found


def audit(
    page: Any, source: Path, where: str, found: list[str], sizes: list[tuple[int, int]] = SIZES
) -> None:
    """axe at 1280x720 and at 390x844 (the same page, resized); what it finds goes to found."""
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        found.extend(f"{where} at {width}x{height}: {v}" for v in axe(page, source))


# Hexadecimal runs (seeds, commitments, round ids) are no words, even when all letters.
HEX = re.compile(r"^[a-f]+$")

# Every text node of the page that is rendered (a screen reader's .sr-only text too), and
# the names, titles and placeholders of its elements; not the seeds and hashes (.mono).
VISIBLE_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !el || el.closest('.mono, script, style, [hidden]')) continue;
    if (el.getClientRects().length === 0 && !el.closest('.sr-only')) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (el.closest('.mono, [hidden]')) continue;
    for (const name of ['aria-label', 'title', 'placeholder']) {
      const value = el.getAttribute(name);
      if (value && value.trim()) out.push(value.trim());
    }
  }
  out.push(document.title);
  return out;
}"""


def words(text: str) -> set[str]:
    """The words of a text (three letters or more), not its {placeholders}."""
    found = re.findall(r"\w+", re.sub(r"\{\w+\}", " ", text))
    return {w.lower() for w in found if w.isalpha() and len(w) >= 3 and not HEX.match(w.lower())}


def kept(catalog: dict[str, str]) -> set[str]:
    """The names a catalog keeps as they are in English (its i18n.kept, office.kept)."""
    return set().union(*(words(catalog[k]) for k in ("i18n.kept", "office.kept") if k in catalog))


def catalog_words(catalog: dict[str, str]) -> set[str]:
    return set().union(*(words(value) for value in catalog.values()))


def untranslated(catalog: dict[str, str], en: dict[str, str]) -> dict[str, str]:
    """A catalog's values that are the English ones and more than the names it keeps."""
    allowed = kept(catalog)
    return {
        key: value
        for key, value in catalog.items()
        if not key.endswith(".kept")
        and value.strip().lower() == en[key].strip().lower()
        and words(value) - allowed
    }


def english_only(catalog: dict[str, str], en: dict[str, str]) -> set[str]:
    """The words of the English catalog that a page in ``catalog``'s language never shows."""
    return catalog_words(en) - catalog_words(catalog) - kept(catalog)


def english_on(page: Any, en_only: set[str]) -> list[str]:
    """The texts of the page that have a word of ``en_only``."""
    return sorted({text for text in page.evaluate(VISIBLE_TEXT) if words(text) & en_only})
