"""JSON text as the server sends and stores it: answers, stored answers, socket messages.

``compact`` gives the text ``json.dumps(value, separators=(",", ":"))`` gives, but for
characters past ASCII, which are written as they are (UTF-8) instead of escaped, and five
to ten times faster (orjson): a round's answer is written for every money-moving request,
a seat's state for each of its sockets after every round.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # keys that are not strings written as json writes them


def compact(value: Any) -> str:
    """``value`` as compact JSON text."""
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except TypeError:
        # An integer past 64 bits (orjson writes none), or a value JSON has no text for,
        # which json refuses with its own message.
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
