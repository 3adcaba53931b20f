"""Responsible gaming: each player's limits and exclusion, pending raises, daily usage, an
append-only audit log of every change, and an index of cashier requests by player and time.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
LIMITS = (
    *(f"{kind}_{period}" for kind in ("deposit", "loss", "wager")
      for period in ("day", "week", "month")),
    "session_minutes",
)  # fmt: skip


def upgrade() -> None:
    op.create_table(
        "responsible_players",
        sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
        # The limits in force (cents; minutes for the session); NULL: no limit.
        *(sa.Column(name, sa.BigInteger, nullable=True) for name in LIMITS),
        sa.Column("reality_minutes", sa.Integer, nullable=False),
        # When the earliest pending raise applies (NULL: none pending).
        sa.Column("pending_us", sa.BigInteger, nullable=True),
        sa.Column("excluded_until_us", sa.BigInteger, nullable=True),
        sa.Column("exclusion", sa.Text, nullable=True),
        # The login session the reality check counts in: its start, the highest round seq
        # before it, and when the player last acknowledged a reality check in it.
        sa.Column("session_us", sa.BigInteger, nullable=True),
        sa.Column("session_seq", sa.BigInteger, nullable=True),
        sa.Column("checked_us", sa.BigInteger, nullable=True),
        sa.Column("updated_us", sa.BigInteger, nullable=False),
        sa.CheckConstraint(
            "exclusion IS NULL OR exclusion IN ('time_out', 'self_exclusion')",
            name="ck_responsible_players_exclusion",
        ),
        sa.CheckConstraint("reality_minutes > 0", name="ck_responsible_players_reality"),
    )
    op.create_table(
        "responsible_pending",
        sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("amount", sa.BigInteger, nullable=True),
        sa.Column("applies_us", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "responsible_usage",
        sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
        # Days since the Unix epoch (UTC).
        sa.Column("day", sa.Integer, primary_key=True),
        sa.Column("wagered", sa.BigInteger, nullable=False),
        # Stakes minus returns: negative when the player came out ahead that day.
        sa.Column("lost", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "responsible_audit",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("details", sa.Text, nullable=False),
    )
    op.create_index("ix_responsible_audit_player", "responsible_audit", ["player_id", "id"])
    # A deposit limit reads the player's requests of the current month only.
    op.create_index(
        "ix_cashier_requests_player_time", "cashier_requests", ["player_id", "created_us"]
    )
    _append_only()


def _append_only() -> None:
    """The audit log is append-only: the database itself refuses UPDATE and DELETE."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION responsible_audit_append_only() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RAISE EXCEPTION 'the responsible-gaming audit log is append-only'; "
            "END $$"
        )
        op.execute(
            "CREATE TRIGGER responsible_audit_append_only BEFORE UPDATE OR DELETE ON "
            "responsible_audit FOR EACH ROW EXECUTE FUNCTION responsible_audit_append_only()"
        )
        return
    for event in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER responsible_audit_no_{event.lower()} BEFORE {event} ON "
            "responsible_audit BEGIN SELECT RAISE(ABORT, "
            "'the responsible-gaming audit log is append-only'); END"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS responsible_audit_append_only ON responsible_audit")
        op.execute("DROP FUNCTION IF EXISTS responsible_audit_append_only()")
    op.drop_index("ix_cashier_requests_player_time", table_name="cashier_requests")
    op.drop_index("ix_responsible_audit_player", table_name="responsible_audit")
    for table in ("responsible_audit", "responsible_usage", "responsible_pending",
                  "responsible_players"):  # fmt: skip
        op.drop_table(table)
