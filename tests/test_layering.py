"""The layering checks import-linter cannot express (its contracts are in pyproject.toml and
run by ``make test``): core uses the standard library only; server/api holds no SQL. And,
file by file, as import-linter cannot leave modules out of a contract's sources: the domain
services (the server but its API and its app) import no web framework, nor the API or the app."""

from __future__ import annotations

import ast
import importlib.util
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


# What a domain service may not import: the web framework and the server's HTTP side.
WEB = ("fastapi", "starlette", "uvicorn", "baccarat.server.api", "baccarat.server.app")


def imported_modules(source: str, package: str) -> set[str]:
    """Every module a source of ``package`` imports, by absolute name, relative imports
    resolved; ``from m import a`` counts ``m.a`` too, since ``a`` may be a submodule."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return found


def web_imports(source: str, package: str) -> set[str]:
    """The modules of ``WEB`` (or within them) that a source of ``package`` imports."""
    return {
        name
        for name in imported_modules(source, package)
        if any(name == web or name.startswith(web + ".") for web in WEB)
    }


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
    inner = "baccarat.server.responsible"  # a package of the server's
    assert web_imports("from starlette.concurrency import run_in_threadpool", inner)
    assert web_imports("def hash():\n    import uvicorn", inner)
    assert web_imports("from ..api import deps", inner) == {
        "baccarat.server.api",
        "baccarat.server.api.deps",
    }
    assert web_imports("from .. import api, ledger", inner) == {"baccarat.server.api"}
    assert web_imports("from .api.guard import Guard", "baccarat.server")
    assert web_imports("import baccarat.server.app", inner)
    # Names are compared whole: responsible.api is not the API, nor is server.apiary.
    assert not web_imports("from .api import deps\nfrom .. import apiary, application", inner)


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


def test_the_domain_services_import_no_web_framework_nor_the_api_nor_the_app() -> None:
    """The server but its API (server/api, a kind's api package) and its app."""
    server = PACKAGE / "server"
    # The API: server/api, and each table kind's own routes (server/kinds/KIND/api).
    api = [server / "api", *(server / "kinds").glob("*/api")]
    domain = [
        path
        for path in sorted(server.rglob("*.py"))
        if not any(folder in path.parents for folder in api) and path != server / "app.py"
    ]
    assert server / "accounts.py" in domain and server / "api" / "guard.py" not in domain
    assert server / "kinds" / "banked" / "service.py" in domain
    assert server / "kinds" / "banked" / "api" / "routes.py" not in domain
    offenders = {}
    for path in domain:
        # Relative imports start from the file's folder (its package), __init__.py's too.
        package = ".".join(path.relative_to(PACKAGE.parent).parent.parts)
        if found := web_imports(path.read_text("utf-8"), package):
            offenders[str(path.relative_to(PACKAGE))] = sorted(found)
    assert offenders == {}
