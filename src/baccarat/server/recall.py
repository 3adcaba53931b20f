"""Game recall (GLI-19, AGCO, docs/jurisdictions.md): a player's last rounds step by step,
as they were played: the bets and the balance before the deal, each card in the order it was
dealt with its hand's score after it, then the result and the balance after. The player's
``GET /api/history/recall`` and the back office's player card show the same."""

from __future__ import annotations

from typing import Any

from baccarat.core import Card, hand_score
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.history import StoredRound, page

# The last round and the nine before it (docs/jurisdictions.md, "For every market").
LAST = 10


def steps(round_json: dict[str, Any]) -> list[dict[str, Any]]:
    """A round's cards in deal order (player, banker, player, banker, then the player's
    third card, then the banker's), each with its hand's score once it is dealt."""
    hands = {name: round_json[name]["cards"] for name in ("player", "banker")}
    values = {name: [c.value for c in Card.parse_many(" ".join(cards))]
              for name, cards in hands.items()}  # fmt: skip
    order = [("player", 0), ("banker", 0), ("player", 1), ("banker", 1), ("player", 2),
             ("banker", 2)]  # fmt: skip
    dealt: list[dict[str, Any]] = []
    for hand, index in order:
        if index < len(hands[hand]):
            dealt.append({"step": len(dealt) + 1, "hand": hand, "card": hands[hand][index],
                          "score": hand_score(values[hand][: index + 1])})  # fmt: skip
    return dealt


def recalled(record: StoredRound) -> dict[str, Any]:
    """A round as the recall shows it: the API's round with its steps."""
    answer = record.to_json()
    return answer | {"steps": steps(answer)}


def recall(
    uow: UnitOfWork, player_id: int, mode: str | None, last: int = LAST
) -> list[dict[str, Any]]:
    """The player's last ``last`` rounds (either role; one mode, or both), newest first."""
    records, _ = page(uow, player_id, mode, last, None)
    return [recalled(record) for record in records]
