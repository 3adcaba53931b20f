"""HMAC-SHA256 signatures of the operator contract, both ways, compared in constant time.

The message is a POST's raw body, or a GET's path with its query string. A signed launch
also carries its time (``timestamp``): the game accepts it only near its own clock.
"""

from __future__ import annotations

import hashlib
import hmac
import time

OPERATOR_HEADER = "X-Operator"
SIGNATURE_HEADER = "X-Signature"


def sign(secret: str, message: bytes) -> str:
    """The hex HMAC-SHA256 of ``message`` with the shared secret."""
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def matches(secret: str, message: bytes, signature: str | None) -> bool:
    """Whether ``signature`` is the message's (in constant time)."""
    if signature is None:
        return False
    return hmac.compare_digest(sign(secret, message), signature.strip().lower())


def headers(operator_id: str, secret: str, message: bytes) -> dict[str, str]:
    """The two headers of a signed request or answer."""
    return {OPERATOR_HEADER: operator_id, SIGNATURE_HEADER: sign(secret, message)}


def timestamp(now_s: float | None = None) -> str:
    """The time a launch carries: ISO 8601 in UTC, to the second (now, unless given)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if now_s is None else now_s))
