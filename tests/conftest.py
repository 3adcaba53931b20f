import json
import os
from pathlib import Path
from typing import Any

import pytest

from .harness import cheap_password_hashing

DATA = Path(__file__).parent / "data"

# The server's keys for the whole suite, as an operator sets them: every database, server
# process and admin command of a test agrees on them, and none is made in the working
# folder (the defaults kept in a data folder are tested on their own, without these:
# tests/server/test_server_sealed_seeds.py, test_server_signatures.py).
os.environ.setdefault("BACCARAT_SEED_KEY", "dGVzdC1zZWVkLWtleS1vZi10aGUtYmFjY2FyYXQtc3U=")
os.environ.setdefault("BACCARAT_SIGNING_KEY", "dGVzdC1zaWduaW5nLWtleS1vZi10aGUtYmFjY2FyYXQ=")
# Argon2id at its cheapest in every server the suite starts (tests/harness.py).
cheap_password_hashing()


@pytest.fixture(scope="session")
def golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "golden_odds.json").read_text())
    return data
