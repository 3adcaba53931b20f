"""The back office: staff accounts (password and TOTP second factor, recovery codes), their
sessions, the staff audit log and the significant events (both append-only), the daily
aggregates the reports read, the back office's settings, each table's switch and the
proposed voids of real-money rounds.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
APPEND_ONLY = {"staff_audit": "the staff audit log", "significant_events": "the significant events"}


def upgrade() -> None:
    op.create_table(
        "staff",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("name_key", sa.Text, nullable=False, unique=True),
        sa.Column("role", sa.Text, nullable=False),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("totp_secret", sa.Text, nullable=False),
        # The last TOTP time step accepted: a code is good once.
        sa.Column("totp_step", sa.BigInteger, nullable=False, server_default="0"),
        # JSON list of the sha256 of the unused recovery codes.
        sa.Column("recovery_codes", sa.Text, nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("disabled_us", sa.BigInteger, nullable=True),
        sa.CheckConstraint(
            "role IN ('viewer', 'support', 'finance', 'admin')", name="ck_staff_role"
        ),
    )
    op.create_table(
        "staff_sessions",
        sa.Column("token_hash", sa.Text, primary_key=True),
        sa.Column("staff_id", Id, sa.ForeignKey("staff.id"), nullable=False, index=True),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("expires_us", sa.BigInteger, nullable=False),
        sa.Column("seen_us", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "staff_audit",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("staff_id", Id, sa.ForeignKey("staff.id"), nullable=True),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("details", sa.Text, nullable=False),
    )
    op.create_index("ix_staff_audit_target", "staff_audit", ["target", "id"])
    op.create_table(
        "significant_events",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("created_us", sa.BigInteger, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        # Who caused it: "staff:ID", "player:ID", "system".
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("details", sa.Text, nullable=False),
    )
    op.create_index("ix_significant_events_kind", "significant_events", ["kind", "id"])
    op.create_index("ix_significant_events_time", "significant_events", ["created_us"])
    op.create_table(
        "daily_stats",
        # Days since the Unix epoch (UTC).
        sa.Column("day", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.Text, primary_key=True),
        sa.Column("mode", sa.Text, primary_key=True),
        sa.Column("bet", sa.Text, primary_key=True),
        sa.Column("rounds", sa.BigInteger, nullable=False),
        sa.Column("stake", sa.BigInteger, nullable=False),
        sa.Column("returned", sa.BigInteger, nullable=False),
        # The sum of the squared stakes (in whole currency units): a statistic for the
        # confidence band, never money.
        sa.Column("stake_sq", sa.BigInteger, nullable=False),
        sa.Column("voided", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "office_settings",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_us", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "table_switches",
        sa.Column("table_id", sa.Text, primary_key=True),
        sa.Column("enabled", sa.Integer, nullable=False),
        # JSON {"min", "max"} in cents overriding the tables file's main limits (NULL: none).
        sa.Column("limits", sa.Text, nullable=True),
        sa.Column("updated_us", sa.BigInteger, nullable=False),
    )
    # A void of a real-money round: one admin or support agent proposes, another admin
    # approves (the two-person rule).
    op.create_table(
        "void_proposals",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("round_id", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("proposed_by", Id, sa.ForeignKey("staff.id"), nullable=False),
        sa.Column("proposed_us", sa.BigInteger, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("decided_by", Id, sa.ForeignKey("staff.id"), nullable=True),
        sa.Column("decided_us", sa.BigInteger, nullable=True),
        sa.CheckConstraint(
            "status IN ('pending', 'approved', 'rejected')", name="ck_void_proposals_status"
        ),
    )
    op.create_index("ix_void_proposals_status", "void_proposals", ["status", "id"])
    for table, what in APPEND_ONLY.items():
        _append_only(table, what)


def _append_only(table: str, what: str) -> None:
    """The database itself refuses UPDATE and DELETE."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"CREATE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql "
            f"AS $$ BEGIN RAISE EXCEPTION '{what} is append-only'; END $$"
        )
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only()"
        )
        return
    for event in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{what} is append-only'); END"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
            op.execute(f"DROP FUNCTION IF EXISTS {table}_append_only()")
    op.drop_index("ix_significant_events_time", table_name="significant_events")
    op.drop_index("ix_significant_events_kind", table_name="significant_events")
    op.drop_index("ix_staff_audit_target", table_name="staff_audit")
    op.drop_index("ix_void_proposals_status", table_name="void_proposals")
    for table in ("void_proposals", "table_switches", "office_settings", "daily_stats",
                  "significant_events", "staff_audit", "staff_sessions", "staff"):  # fmt: skip
        op.drop_table(table)
