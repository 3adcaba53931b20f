"""The layering checks import-linter cannot express (its contracts are in pyproject.toml and
run by ``make test``): core uses the standard library only; server/api holds no SQL."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import baccarat

PACKAGE = Path(baccarat.__file__).parent
SQL = re.compile(
    r"\b(SELECT\b.+\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+TABLE)\b",
    re.IGNORECASE | re.DOTALL,
)


def foreign_imports(source: str) -> set[str]:
    """Top-level modules a source imports that are neither the standard library nor its
    own package (relative imports)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found |= {n.split(".")[0] for n in names} - set(sys.stdlib_module_names)
    return found - {"__future__"}


def sql_strings(source: str) -> list[str]:
    """String constants (and f-string parts) that read as SQL statements."""
    return [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value)
    ]


def test_the_scanners_see_what_they_look_for() -> None:
    assert foreign_imports("import numpy\nfrom fastapi import X\nimport json\nfrom . import a") == {
        "numpy",
        "fastapi",
    }
    assert sql_strings('uow.one("SELECT balance FROM accounts WHERE id = :a")')
    assert sql_strings('q = f"UPDATE accounts SET balance = {x}"')
    assert not sql_strings('raise ServiceError("no_bets", "select a chip, then a bet")')


def test_core_uses_the_standard_library_only() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(found)
        for path in sorted((PACKAGE / "core").rglob("*.py"))
        if (found := foreign_imports(path.read_text("utf-8")))
    }
    assert offenders == {}


def test_the_api_holds_no_sql() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted((PACKAGE / "server" / "api").rglob("*.py"))
        if (found := sql_strings(path.read_text("utf-8")))
    }
    assert offenders == {}
