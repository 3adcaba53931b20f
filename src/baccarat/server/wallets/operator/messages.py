"""Messages an operator attaches to its wallet's answers for its player (a reality check of
the operator's: "you have played an hour", with the choices "continue", "close" and "view
history"): kept when the answer is recorded, shown to the player's page with every answer
of play until the player chooses, and the choice sent back to the operator (the engine).

An answer sent again (a retry answered with the first answer) carries the same message: it
is kept once (the operator's id of it, per player)."""

from __future__ import annotations

import json
from typing import Any

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.wallets.operator.contract import Message


def keep(uow: UnitOfWork, operator_id: str, player_id: int, call_id: int | None,
         message: Message) -> None:  # fmt: skip
    """A message an answer carried, for the player (once, however often it came)."""
    uow.run(
        "INSERT INTO operator_messages (operator_id, player_id, message_id, text, choices, "
        "history_url, call_id, created_us) VALUES (:o, :p, :m, :t, :c, :h, :call, :now) "
        "ON CONFLICT (operator_id, player_id, message_id) DO NOTHING",
        {"o": operator_id, "p": player_id, "m": message.id, "t": message.text,
         "c": json.dumps(list(message.choices)), "h": message.history_url, "call": call_id,
         "now": uow.now},
    )  # fmt: skip


def waiting(uow: UnitOfWork, player_id: int) -> dict[str, Any] | None:
    """The oldest message the player has not answered, as the page shows it (``id``: ours,
    which the player's choice names)."""
    row = uow.one(
        "SELECT id, text, choices, history_url FROM operator_messages WHERE player_id = :p "
        "AND chosen_us IS NULL ORDER BY id LIMIT 1",
        {"p": player_id},
    )
    if row is None:
        return None
    return {"id": int(row[0]), "text": row[1], "choices": json.loads(row[2]),
            "history_url": row[3]}  # fmt: skip


def choose(uow: UnitOfWork, player_id: int, message: int, choice: Any
           ) -> tuple[str, str, bool]:  # fmt: skip
    """The player's choice on their message (one it offers; a message answered already keeps
    its first choice): (the operator's id of the message, the choice, whether it is new)."""
    row = uow.one(
        "SELECT message_id, choices, choice FROM operator_messages WHERE id = :m "
        "AND player_id = :p" + uow.for_update,
        {"m": message, "p": player_id},
    )
    if row is None:
        raise ServiceError("unknown_message", f"you have no message {message} of your casino",
                           id=message)  # fmt: skip
    offered = json.loads(row[1])
    if row[2] is not None:
        return str(row[0]), str(row[2]), False
    if choice not in offered:
        raise ServiceError("invalid_body", f"choice is one of {', '.join(offered)}",
                           field="choice", choices=offered)  # fmt: skip
    uow.run(
        "UPDATE operator_messages SET choice = :c, chosen_us = :now WHERE id = :m",
        {"c": choice, "now": uow.now, "m": message},
    )
    return str(row[0]), str(choice), True
