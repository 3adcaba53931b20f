"""The back office's API documents what a staff change may answer: a route's own errors are
added to the ones every change shares (the body, the reason), not put in their place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baccarat.server.app import create_app
from baccarat.server.settings import Settings


def _body_properties(schema: dict[str, Any], operation: dict[str, Any]) -> set[str]:
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = body.get("schema", {}).get("$ref", "")
    if not ref:
        return set()
    return set(schema["components"]["schemas"][ref.rsplit("/", 1)[-1]].get("properties", {}))


def test_every_staff_change_documents_the_body_and_the_reason(tmp_path: Path) -> None:
    schema = create_app(Settings.for_data_dir(tmp_path)).openapi()
    changes = []
    for path, operations in schema["paths"].items():
        if not path.startswith("/admin/api/"):
            continue
        for method, operation in operations.items():
            if "reason" not in _body_properties(schema, operation):
                continue
            changes.append(f"{method.upper()} {path}")
            unprocessable = operation["responses"]["422"]["description"]
            for code in ("invalid_body", "reason_required", "invalid_request"):
                assert f"`{code}`" in unprocessable, (method, path, code)
            assert "`forbidden`" in operation["responses"]["403"]["description"], (method, path)
    # The kill switch, the limits, the thresholds, the voids, the cashier, the staff.
    assert len(changes) >= 10, changes
