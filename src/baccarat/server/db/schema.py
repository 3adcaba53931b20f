"""The schema, as SQLAlchemy Core tables: the reference the migrations are checked against.

Money is BIGINT cents. Times are BIGINT microseconds since the Unix epoch (UTC). The ledger
is append-only (triggers refuse UPDATE and DELETE on entries and transactions); a player's
(and the pending-withdrawals) ``balance`` is a cache of the sum of its entries, updated in
the same transaction, and can never go below zero (CHECK constraint); the house's and the
cashier's balances are derived from their entries (their column stays 0).
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
MODES = "mode IN ('fun', 'real')"

players = sa.Table(
    "players",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("nickname", sa.Text, nullable=False),
    sa.Column("nickname_key", sa.Text, nullable=False, unique=True),
    # The look-alike key (accounts.nickname_norm); NULL only for an account that already
    # looked like an older one when the key was introduced (migration 0006).
    sa.Column("nickname_norm", sa.Text, nullable=True, unique=True),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
)

sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("token_hash", sa.Text, primary_key=True),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False, index=True),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("expires_us", sa.BigInteger, nullable=False),
    # The inactivity time-out of the profile the session began under (revision 0028; 0:
    # none) and its player's last action: past it, the session is ended (auth.py).
    sa.Column("idle_us", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("acted_us", sa.BigInteger, nullable=False, server_default="0"),
)

login_throttle = sa.Table(
    "login_throttle",
    metadata,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("blocked_until_us", sa.BigInteger, nullable=False),
    sa.Column("updated_us", sa.BigInteger, nullable=False),
)

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    # NULL for the casino's own accounts (house, cashier, withdrawals).
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=True),
    sa.Column("mode", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("balance", sa.BigInteger, nullable=False),
    sa.Column("version", sa.BigInteger, nullable=False),
    # ISO 4217: the account's amounts are of its minor unit (revision 0014; USD before).
    sa.Column("currency", sa.Text, nullable=False, server_default="USD"),
    sa.CheckConstraint(MODES, name="mode"),
    # 'escrow': what player-banked seats hold in play (revision 0002).
    sa.CheckConstraint(
        "kind IN ('player', 'house', 'cashier', 'withdrawals', 'escrow')", name="kind"
    ),
    sa.CheckConstraint("(kind = 'player') = (player_id IS NOT NULL)", name="owner"),
    # The house and the cashier are the casino's side of every movement and may be
    # negative; a player's money (and money reserved for withdrawals) never is.
    sa.CheckConstraint("kind IN ('house', 'cashier') OR balance >= 0", name="non_negative"),
    sa.Index("ix_accounts_player", "player_id", "mode", "kind", unique=True),
    sa.Index(
        "ix_accounts_system",
        "mode",
        "kind",
        "currency",
        unique=True,
        sqlite_where=sa.text("player_id IS NULL"),
        postgresql_where=sa.text("player_id IS NULL"),
    ),
)

ledger_transactions = sa.Table(
    "ledger_transactions",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("mode", sa.Text, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("reference", sa.Text, nullable=True),
    sa.Column("memo", sa.Text, nullable=True),
    sa.CheckConstraint(MODES, name="mode"),
)

# On PostgreSQL some of its foreign keys are dropped (migration 0016, HOT_KEYS).
ledger_entries = sa.Table(
    "ledger_entries",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column(
        "transaction_id", Id, sa.ForeignKey("ledger_transactions.id"), nullable=False, index=True
    ),
    sa.Column("account_id", Id, sa.ForeignKey("accounts.id"), nullable=False, index=True),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.CheckConstraint("amount <> 0", name="nonzero"),
)

fairness_seeds = sa.Table(
    "fairness_seeds",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
    sa.Column("mode", sa.Text, nullable=False),
    sa.Column("server_seed", sa.Text, nullable=False),
    sa.Column("commitment", sa.Text, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("revealed_us", sa.BigInteger, nullable=True),
    # How many nonces the seed gave out, recorded when it is revealed (migration 0007).
    sa.Column("nonces_used", sa.BigInteger, nullable=True),
    # The shoes cut under the seed that dealt no round (JSON: [{nonce, table_id, cut}]),
    # recorded when it is revealed; NULL: revealed before it was recorded (migration 0008).
    sa.Column("undealt_shoes", sa.Text, nullable=True),
    # Migration 0010: when the seed stopped giving out nonces (rotated; revealed then, or
    # when the last cut shoe dealt from it ends), and the seat whose own seed it is.
    sa.Column("retired_us", sa.BigInteger, nullable=True),
    sa.Column("seat_id", sa.Text, nullable=True),
    sa.CheckConstraint(MODES, name="mode"),
    sa.Index("ix_fairness_seeds_player", "player_id", "mode"),
)

fairness_states = sa.Table(
    "fairness_states",
    metadata,
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("mode", sa.Text, primary_key=True),
    sa.Column("seed_id", Id, sa.ForeignKey("fairness_seeds.id"), nullable=False),
    # Copies of the current seed's values, so a round reads them with its nonce.
    sa.Column("server_seed", sa.Text, nullable=False),
    sa.Column("commitment", sa.Text, nullable=False),
    sa.Column("client_seed", sa.Text, nullable=False),
    sa.Column("next_nonce", sa.BigInteger, nullable=False),
    # Who set the client seed (migration 0010): "client" or "server" (the placeholder made
    # at registration and at every rotation, until the player sets one).
    sa.Column("client_seed_source", sa.Text, nullable=False, server_default="server"),
    # The cut shoes' own seed (migration 0023), committed with the first: every cut shoe
    # takes its next nonce (its ``nonces_used``). NULL for a state made before: its cut
    # shoes take the first seed's nonces until the next rotation commits both.
    sa.Column("shoe_seed_id", Id, nullable=True),
    sa.CheckConstraint(MODES, name="mode"),
)

shoes = sa.Table(
    "shoes",
    metadata,
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("table_id", sa.Text, primary_key=True),
    sa.Column("mode", sa.Text, primary_key=True),
    sa.Column("seed_id", Id, sa.ForeignKey("fairness_seeds.id"), nullable=False),
    sa.Column("client_seed", sa.Text, nullable=False),
    sa.Column("nonce", sa.BigInteger, nullable=False),
    sa.Column("cut", sa.Integer, nullable=False),
    # The next card to deal, as an index into the derived order after the cut.
    sa.Column("position", sa.Integer, nullable=False),
    # Where the first coup starts (after the burn): a shoe still there dealt nothing
    # (migration 0008; NULL for shoes cut before).
    sa.Column("start", sa.Integer, nullable=True),
    sa.Column("cut_card", sa.Integer, nullable=True),
    sa.Column("cards", sa.Integer, nullable=False),
    sa.Column("finished", sa.Integer, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("client_seed_source", sa.Text, nullable=True),  # migration 0010
    sa.CheckConstraint(MODES, name="mode"),
)

# On PostgreSQL some of its foreign keys are dropped (migration 0016, HOT_KEYS).
rounds = sa.Table(
    "rounds",
    metadata,
    sa.Column("seq", Id, primary_key=True, autoincrement=True),
    sa.Column("id", sa.Text, nullable=False, unique=True),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
    sa.Column("table_id", sa.Text, nullable=False),
    sa.Column("mode", sa.Text, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("rules", sa.Text, nullable=False),
    # NULL for a shared table's round: its shoe is the table's (``shared_shoes``, by the
    # commitment), not the player's (migration 0013).
    sa.Column("seed_id", Id, sa.ForeignKey("fairness_seeds.id"), nullable=True),
    sa.Column("commitment", sa.Text, nullable=False),
    sa.Column("client_seed", sa.Text, nullable=False),
    sa.Column("nonce", sa.BigInteger, nullable=False),
    sa.Column("cut", sa.Integer, nullable=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("player_cards", sa.Text, nullable=False),
    sa.Column("banker_cards", sa.Text, nullable=False),
    sa.Column("winner", sa.Text, nullable=False),
    sa.Column("bets", sa.Text, nullable=False),
    sa.Column("stake", sa.BigInteger, nullable=False),
    sa.Column("win", sa.BigInteger, nullable=False),
    sa.Column("balance_before", sa.BigInteger, nullable=False),
    sa.Column("balance_after", sa.BigInteger, nullable=False),
    sa.Column("transaction_id", Id, sa.ForeignKey("ledger_transactions.id"), nullable=False),
    sa.Column("void_reason", sa.Text, nullable=True),
    sa.Column("voided_us", sa.BigInteger, nullable=True),
    sa.Column("void_transaction_id", Id, sa.ForeignKey("ledger_transactions.id"), nullable=True),
    # Who set the client seed: "client" or "server" (migration 0010; NULL: recorded before).
    # A player-banked round: the player's (the banker's is in banked_rounds).
    sa.Column("client_seed_source", sa.Text, nullable=True),
    # Multiplier baccarat (migration 0025): the round's multiplier cards (JSON; NULL without
    # them) and the fee taken with the stakes (never returned; 0 elsewhere).
    sa.Column("lightning", sa.Text, nullable=True),
    sa.Column("fee", sa.BigInteger, nullable=False, server_default="0"),
    sa.CheckConstraint(MODES, name="mode"),
    sa.CheckConstraint("stake > 0 AND win >= 0", name="amounts"),
    sa.Index("ix_rounds_player", "player_id", "mode", "seq"),
    sa.Index("ix_rounds_table", "player_id", "table_id", "mode", "seq"),
    sa.Index("ix_rounds_transaction", "transaction_id", unique=True),
)

# On PostgreSQL some of its foreign keys are dropped (migration 0016, HOT_KEYS).
idempotency_keys = sa.Table(
    "idempotency_keys",
    metadata,
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("request_hash", sa.Text, nullable=False),
    sa.Column("status", sa.Integer, nullable=False),
    sa.Column("response", sa.Text, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
)

cashier_requests = sa.Table(
    "cashier_requests",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("mode", sa.Text, nullable=False),
    sa.Column("amount", sa.BigInteger, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("decided_us", sa.BigInteger, nullable=True),
    sa.Column("note", sa.Text, nullable=True),
    # Withdrawals: the reservation; both kinds: the decision's movement (if any).
    sa.Column("reserve_transaction_id", Id, sa.ForeignKey("ledger_transactions.id"), nullable=True),
    sa.Column(
        "decision_transaction_id", Id, sa.ForeignKey("ledger_transactions.id"), nullable=True
    ),
    sa.CheckConstraint("kind IN ('deposit', 'withdrawal')", name="kind"),
    sa.CheckConstraint("status IN ('pending', 'approved', 'rejected')", name="status"),
    sa.CheckConstraint("amount > 0", name="amount"),
    sa.CheckConstraint(MODES, name="mode"),
    sa.Index("ix_cashier_requests_status", "status", "kind"),
    sa.Index("ix_cashier_requests_player", "player_id", "id"),
    # Revision 0005: a deposit limit reads the player's requests of the current month.
    sa.Index("ix_cashier_requests_player_time", "player_id", "created_us"),
)


# -- player-banked tables (revision 0002) --------------------------------------------------

banked_seats = sa.Table(
    "banked_seats",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("table_id", sa.Text, nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("mode", sa.Text, nullable=True),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=True),
    sa.Column("banker_id", Id, sa.ForeignKey("players.id"), nullable=True),
    sa.Column("phase", sa.Text, nullable=False),
    sa.Column("deadline_us", sa.BigInteger, nullable=True),
    sa.Column("auto_approve", sa.Integer, nullable=False),
    sa.Column("banker_away", sa.Integer, nullable=False),
    # The player's bets placed (JSON) and their total, held in escrow until dealt.
    sa.Column("bets", sa.Text, nullable=False),
    sa.Column("stake", sa.BigInteger, nullable=False),
    # The banker's exposure held in escrow while a round is open.
    sa.Column("reserve", sa.BigInteger, nullable=False),
    sa.Column("notice", sa.Text, nullable=True),
    sa.Column("last_round_id", sa.Text, nullable=True),
    sa.Column("version", sa.BigInteger, nullable=False),
    sa.Column("updated_us", sa.BigInteger, nullable=False),
    # Until when a participant whose last socket closed may reconnect (then they leave).
    sa.Column("player_grace_us", sa.BigInteger, nullable=True),
    sa.Column("banker_grace_us", sa.BigInteger, nullable=True),
    # The pair's own seed (migration 0010), from the pair's forming to its end: its next
    # nonce and both client seeds (JSON {"player": {"seed", "source"}, "banker": ...}).
    sa.Column("seed_id", Id, nullable=True),
    sa.Column("seed_nonce", sa.BigInteger, nullable=True),
    sa.Column("client_seeds", sa.Text, nullable=True),
    sa.CheckConstraint("mode IS NULL OR mode IN ('fun', 'real')", name="mode"),
    sa.CheckConstraint("phase IN ('waiting', 'approval', 'betting')", name="phase"),
    sa.CheckConstraint("stake >= 0 AND reserve >= 0", name="amounts"),
    sa.CheckConstraint(
        "player_id IS NULL OR banker_id IS NULL OR player_id <> banker_id", name="two_players"
    ),
    sa.Index("ix_banked_seats_table", "table_id", "number", unique=True),
    sa.Index(
        "ix_banked_seats_player",
        "player_id",
        unique=True,
        sqlite_where=sa.text("player_id IS NOT NULL"),
        postgresql_where=sa.text("player_id IS NOT NULL"),
    ),
    sa.Index(
        "ix_banked_seats_banker",
        "banker_id",
        unique=True,
        sqlite_where=sa.text("banker_id IS NOT NULL"),
        postgresql_where=sa.text("banker_id IS NOT NULL"),
    ),
    sa.Index(
        "ix_banked_seats_deadline",
        "deadline_us",
        sqlite_where=sa.text("deadline_us IS NOT NULL"),
        postgresql_where=sa.text("deadline_us IS NOT NULL"),
    ),
    *(
        sa.Index(
            f"ix_banked_seats_{role}_grace",
            f"{role}_grace_us",
            sqlite_where=sa.text(f"{role}_grace_us IS NOT NULL"),
            postgresql_where=sa.text(f"{role}_grace_us IS NOT NULL"),
        )
        for role in ("player", "banker")
    ),
)

# On PostgreSQL its foreign keys are dropped (migration 0019, BANKED_KEYS).
banked_rounds = sa.Table(
    "banked_rounds",
    metadata,
    sa.Column("round_id", sa.Text, sa.ForeignKey("rounds.id"), primary_key=True),
    sa.Column("round_seq", Id, nullable=False),
    sa.Column("seat_id", sa.Text, nullable=False),
    sa.Column("mode", sa.Text, nullable=False),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
    sa.Column("banker_id", Id, sa.ForeignKey("players.id"), nullable=False),
    sa.Column("fee", sa.BigInteger, nullable=False),
    sa.Column("reserve", sa.BigInteger, nullable=False),
    sa.Column("banker_before", sa.BigInteger, nullable=False),
    sa.Column("banker_after", sa.BigInteger, nullable=False),
    sa.Column("player_points", sa.BigInteger, nullable=False),
    sa.Column("banker_points", sa.BigInteger, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("banker_seed_source", sa.Text, nullable=True),  # migration 0010
    sa.CheckConstraint(MODES, name="mode"),
    sa.CheckConstraint(
        "fee >= 0 AND reserve >= 0 AND player_points >= 0 AND banker_points >= 0",
        name="amounts",
    ),
    sa.Index("ix_banked_rounds_banker", "banker_id", "mode", "round_seq"),
)

banked_points = sa.Table(
    "banked_points",
    metadata,
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("mode", sa.Text, primary_key=True),
    sa.Column("points", sa.BigInteger, nullable=False),
    sa.Column("updated_us", sa.BigInteger, nullable=False),
    sa.CheckConstraint(MODES, name="mode"),
    sa.CheckConstraint("points >= 0", name="non_negative"),
)

banked_presence = sa.Table(
    "banked_presence",
    metadata,
    sa.Column("conn_id", sa.Text, primary_key=True),
    sa.Column("seat_id", sa.Text, nullable=False),
    sa.Column("player_id", Id, nullable=False),
    sa.Column("worker", sa.Text, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Index("ix_banked_presence_seat", "seat_id", "player_id"),
)


# -- responsible gaming (revision 0005) ----------------------------------------------------

RESPONSIBLE_LIMITS = (
    *(f"{kind}_{period}" for kind in ("deposit", "loss", "wager")
      for period in ("day", "week", "month")),
    "session_minutes",
)  # fmt: skip

responsible_players = sa.Table(
    "responsible_players",
    metadata,
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    *(sa.Column(name, sa.BigInteger, nullable=True) for name in RESPONSIBLE_LIMITS),
    sa.Column("reality_minutes", sa.Integer, nullable=False),
    sa.Column("pending_us", sa.BigInteger, nullable=True),
    sa.Column("excluded_until_us", sa.BigInteger, nullable=True),
    sa.Column("exclusion", sa.Text, nullable=True),
    sa.Column("session_us", sa.BigInteger, nullable=True),
    sa.Column("session_seq", sa.BigInteger, nullable=True),
    sa.Column("checked_us", sa.BigInteger, nullable=True),
    sa.Column("updated_us", sa.BigInteger, nullable=False),
    # When the session limit in force took effect (migration 0022).
    sa.Column("session_limit_us", sa.BigInteger, nullable=True),
    sa.CheckConstraint(
        "exclusion IS NULL OR exclusion IN ('time_out', 'self_exclusion')", name="exclusion"
    ),
    sa.CheckConstraint("reality_minutes > 0", name="reality"),
)

responsible_pending = sa.Table(
    "responsible_pending",
    metadata,
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("amount", sa.BigInteger, nullable=True),
    sa.Column("applies_us", sa.BigInteger, nullable=False),
)

responsible_usage = sa.Table(
    "responsible_usage",
    metadata,
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("day", sa.Integer, primary_key=True),
    sa.Column("wagered", sa.BigInteger, nullable=False),
    sa.Column("lost", sa.BigInteger, nullable=False),
)

# Append-only: triggers refuse UPDATE and DELETE.
responsible_audit = sa.Table(
    "responsible_audit",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("details", sa.Text, nullable=False),
    sa.Index("ix_responsible_audit_player", "player_id", "id"),
)

# Operators (docs/operator-api.md): single-use launch codes, the operators' players (one of
# ours per operator, player and currency) and their sessions.
operator_launches = sa.Table(
    "operator_launches",
    metadata,
    sa.Column("code_hash", sa.Text, primary_key=True),
    sa.Column("operator_id", sa.Text, nullable=False),
    sa.Column("external_player", sa.Text, nullable=False),
    sa.Column("token", sa.Text, nullable=False),
    sa.Column("currency", sa.Text, nullable=False),
    sa.Column("language", sa.Text, nullable=False),
    sa.Column("table_id", sa.Text, nullable=True),
    sa.Column("lobby_url", sa.Text, nullable=True),
    sa.Column("demo", sa.Integer, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("expires_us", sa.BigInteger, nullable=False),
    sa.Column("used_us", sa.BigInteger, nullable=True),
    # The launch's request, remembered (revision 0021): a repeat answers the first answer.
    sa.Column("request_uuid", sa.Text, nullable=True),
    sa.Column("request_hash", sa.Text, nullable=True),
    # The market the launch named (revision 0026): its session's jurisdiction profile.
    sa.Column("market", sa.Text, nullable=True),
    # Codes past their time are purged a few at a launch (revision 0014).
    sa.Index("ix_operator_launches_expires_us", "expires_us"),
    sa.Index("ix_operator_launches_request", "operator_id", "request_uuid", unique=True),
)

operator_players = sa.Table(
    "operator_players",
    metadata,
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("operator_id", sa.Text, nullable=False),
    sa.Column("external_player", sa.Text, nullable=False),
    sa.Column("currency", sa.Text, nullable=False),
    sa.UniqueConstraint("operator_id", "external_player", "currency"),
)

operator_sessions = sa.Table(
    "operator_sessions",
    metadata,
    sa.Column("token_hash", sa.Text, primary_key=True),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
    sa.Column("operator_id", sa.Text, nullable=False),
    sa.Column("token", sa.Text, nullable=False),
    sa.Column("currency", sa.Text, nullable=False),
    sa.Column("language", sa.Text, nullable=False),
    sa.Column("table_id", sa.Text, nullable=True),
    sa.Column("lobby_url", sa.Text, nullable=True),
    sa.Column("demo", sa.Integer, nullable=False),
    # The balance the operator last answered (NULL: not asked yet).
    sa.Column("balance", sa.BigInteger, nullable=True),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    # The market its launch named (revision 0026; NULL: the deployment's profile).
    sa.Column("market", sa.Text, nullable=True),
)

# A round on an operator's wallet: its state machine (the outbox), written before every call.
operator_rounds = sa.Table(
    "operator_rounds",
    metadata,
    sa.Column("round_id", sa.Text, primary_key=True),
    sa.Column("operator_id", sa.Text, nullable=False),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
    sa.Column("external_player", sa.Text, nullable=False),
    sa.Column("token", sa.Text, nullable=False),
    sa.Column("currency", sa.Text, nullable=False),
    sa.Column("table_id", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("stake", sa.BigInteger, nullable=False),
    sa.Column("win", sa.BigInteger, nullable=False),
    sa.Column("bets", sa.Text, nullable=False),
    sa.Column("bet_status", sa.Text, nullable=True),
    sa.Column("win_status", sa.Text, nullable=True),
    sa.Column("rollback_status", sa.Text, nullable=True),
    sa.Column("attempts", sa.Integer, nullable=False),
    # When the next attempt is due, and until when a process holds the round (its lease).
    sa.Column("next_us", sa.BigInteger, nullable=False),
    sa.Column("lease_us", sa.BigInteger, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("finished_us", sa.BigInteger, nullable=True),
    # A bettor's bets on a shared coup (revision 0020): the coup, and the operator's balance
    # once the bet was applied (the round is dealt later, with the coup).
    sa.Column("coup_id", sa.BigInteger, nullable=True),
    sa.Column("balance", sa.BigInteger, nullable=True),
    # The wallet contract it is played in (revision 0024; ``wallets.operator.protocols``).
    sa.Column("protocol", sa.Text, nullable=False, server_default="v1"),
    sa.CheckConstraint(
        "state IN ('bet', 'placed', 'win', 'settled', 'refused', 'rollback', 'rolled_back')",
        name="state",
    ),
    sa.Index("ix_operator_rounds_due", "state", "next_us"),
    sa.Index("ix_operator_rounds_operator", "operator_id", "created_us"),
    sa.Index("ix_operator_rounds_coup", "coup_id", "state"),
)

# Every call to an operator's wallet: written before it is sent, completed by its answer.
operator_calls = sa.Table(
    "operator_calls",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("round_id", sa.Text, nullable=True),
    sa.Column("operator_id", sa.Text, nullable=False),
    sa.Column("call", sa.Text, nullable=False),
    sa.Column("transaction_uuid", sa.Text, nullable=True),
    sa.Column("request_uuid", sa.Text, nullable=False),
    sa.Column("attempt", sa.Integer, nullable=False),
    sa.Column("sent_us", sa.BigInteger, nullable=False),
    sa.Column("answered_us", sa.BigInteger, nullable=True),
    sa.Column("http_status", sa.Integer, nullable=True),
    sa.Column("status", sa.Text, nullable=True),
    sa.Column("balance", sa.BigInteger, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    # Revision 0024: the operator's player, the body as sent, the answer's body as received
    # and the operator's reason for a refusal; found by time and by player.
    sa.Column("player", sa.Text, nullable=True),
    sa.Column("body", sa.Text, nullable=True),
    sa.Column("answer", sa.Text, nullable=True),
    sa.Column("reason", sa.Text, nullable=True),
    sa.Index("ix_operator_calls_round", "round_id", "id"),
    sa.Index("ix_operator_calls_sent", "sent_us"),
    sa.Index("ix_operator_calls_player", "player", "sent_us"),
)

# A message an operator attached to an answer (a reality check), shown to its player until
# they choose one of its choices (revision 0024).
operator_messages = sa.Table(
    "operator_messages",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("operator_id", sa.Text, nullable=False),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), nullable=False),
    sa.Column("message_id", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("choices", sa.Text, nullable=False),
    sa.Column("history_url", sa.Text, nullable=True),
    sa.Column("call_id", Id, nullable=True),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("chosen_us", sa.BigInteger, nullable=True),
    sa.Column("choice", sa.Text, nullable=True),
    sa.UniqueConstraint("operator_id", "player_id", "message_id"),
    sa.Index("ix_operator_messages_player", "player_id", "chosen_us"),
)


# -- the back office (revision 0012; docs/back-office.md) ---------------------------------

staff = sa.Table(
    "staff",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("name_key", sa.Text, nullable=False, unique=True),
    sa.Column("role", sa.Text, nullable=False),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column("totp_secret", sa.Text, nullable=False),
    sa.Column("totp_step", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("recovery_codes", sa.Text, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("disabled_us", sa.BigInteger, nullable=True),
    sa.CheckConstraint("role IN ('viewer', 'support', 'finance', 'admin')", name="role"),
)

staff_sessions = sa.Table(
    "staff_sessions",
    metadata,
    sa.Column("token_hash", sa.Text, primary_key=True),
    sa.Column("staff_id", Id, sa.ForeignKey("staff.id"), nullable=False, index=True),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("expires_us", sa.BigInteger, nullable=False),
    sa.Column("seen_us", sa.BigInteger, nullable=False),
)

# Append-only, like significant_events: triggers refuse UPDATE and DELETE.
staff_audit = sa.Table(
    "staff_audit",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("staff_id", Id, sa.ForeignKey("staff.id"), nullable=True),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("target", sa.Text, nullable=False),
    sa.Column("reason", sa.Text, nullable=True),
    sa.Column("details", sa.Text, nullable=False),
    sa.Index("ix_staff_audit_target", "target", "id"),
)

significant_events = sa.Table(
    "significant_events",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("actor", sa.Text, nullable=False),
    sa.Column("subject", sa.Text, nullable=False),
    sa.Column("details", sa.Text, nullable=False),
    sa.Index("ix_significant_events_kind", "kind", "id"),
    sa.Index("ix_significant_events_time", "created_us"),
)

daily_stats = sa.Table(
    "daily_stats",
    metadata,
    sa.Column("day", sa.Integer, primary_key=True),
    sa.Column("table_id", sa.Text, primary_key=True),
    sa.Column("mode", sa.Text, primary_key=True),
    sa.Column("bet", sa.Text, primary_key=True),
    # ISO 4217: the currency the round's money moved in (never added to another).
    sa.Column("currency", sa.Text, primary_key=True),
    # The writer connection's shard (PostgreSQL; 0 on SQLite): migration 0016.
    sa.Column("shard", sa.Integer, primary_key=True),
    sa.Column("rounds", sa.BigInteger, nullable=False),
    sa.Column("stake", sa.BigInteger, nullable=False),
    sa.Column("returned", sa.BigInteger, nullable=False),
    sa.Column("stake_sq", sa.BigInteger, nullable=False),
    sa.Column("voided", sa.BigInteger, nullable=False),
    # The casino's fees on the row's rounds (player-banked; migration 0022).
    sa.Column("fees", sa.BigInteger, nullable=False, server_default="0"),
)

office_settings = sa.Table(
    "office_settings",
    metadata,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
    sa.Column("updated_us", sa.BigInteger, nullable=False),
)

table_switches = sa.Table(
    "table_switches",
    metadata,
    sa.Column("table_id", sa.Text, primary_key=True),
    sa.Column("enabled", sa.Integer, nullable=False),
    sa.Column("limits", sa.Text, nullable=True),
    sa.Column("updated_us", sa.BigInteger, nullable=False),
)

void_proposals = sa.Table(
    "void_proposals",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("round_id", sa.Text, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("proposed_by", Id, sa.ForeignKey("staff.id"), nullable=False),
    sa.Column("proposed_us", sa.BigInteger, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("decided_by", Id, sa.ForeignKey("staff.id"), nullable=True),
    sa.Column("decided_us", sa.BigInteger, nullable=True),
    sa.CheckConstraint("status IN ('pending', 'approved', 'rejected')", name="status"),
    sa.Index("ix_void_proposals_status", "status", "id"),
)


# Shared tables (SPEC §9, migration 0013): one shoe dealt on a clock for every player.
shared_shoes = sa.Table(
    "shared_shoes",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.Text, nullable=False),
    sa.Column("server_seed", sa.Text, nullable=False),
    sa.Column("commitment", sa.Text, nullable=False, unique=True),
    sa.Column("client_seed", sa.Text, nullable=False),
    sa.Column("cut", sa.Integer, nullable=False),
    # Where the first coup starts (after the burn), and the next card to deal.
    sa.Column("start", sa.Integer, nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("cards", sa.Integer, nullable=False),
    sa.Column("coups", sa.Integer, nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    # Set when the shoe ends (its seed is revealed then): "finished" or "cancelled".
    sa.Column("finished_us", sa.BigInteger, nullable=True),
    sa.Column("ending", sa.Text, nullable=True),
    # A configured beacon (migration 0017): the chain and the round named when the shoe was
    # committed, and the round's signature once it entered (NULL: the shoe waits for it).
    sa.Column("beacon_chain", sa.Text, nullable=True),
    sa.Column("beacon_round", sa.BigInteger, nullable=True),
    sa.Column("beacon_signature", sa.Text, nullable=True),
    sa.CheckConstraint("ending IS NULL OR ending IN ('finished', 'cancelled')", name="ending"),
    sa.Index("ix_shared_shoes_table", "table_id", "id"),
)

# Each shared table's append-only, hash-chained log (migration 0017): its shoes' commitments,
# beacon rounds and reveals (``fairness.beacon``), ``entry`` the canonical JSON with its hash.
shared_log = sa.Table(
    "shared_log",
    metadata,
    sa.Column("table_id", sa.Text, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("shoe_id", Id, sa.ForeignKey("shared_shoes.id"), nullable=False),
    sa.Column("created_us", sa.BigInteger, nullable=False),
    sa.Column("entry", sa.Text, nullable=False),
    sa.Column("hash", sa.Text, nullable=False),
    sa.Index("ix_shared_log_shoe", "shoe_id", "seq"),
)

shared_coups = sa.Table(
    "shared_coups",
    metadata,
    sa.Column("id", Id, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.Text, nullable=False),
    sa.Column("shoe_id", Id, sa.ForeignKey("shared_shoes.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("opens_us", sa.BigInteger, nullable=False),
    sa.Column("closes_us", sa.BigInteger, nullable=False),
    # Once dealt: when, when the next window may open, where in the shoe, the cards.
    sa.Column("dealt_us", sa.BigInteger, nullable=True),
    sa.Column("next_us", sa.BigInteger, nullable=True),
    sa.Column("position", sa.Integer, nullable=True),
    sa.Column("player_cards", sa.Text, nullable=True),
    sa.Column("banker_cards", sa.Text, nullable=True),
    sa.Column("winner", sa.Text, nullable=True),
    sa.Column("void_reason", sa.Text, nullable=True),
    # Multiplier baccarat (migration 0025): the coup's multiplier cards, drawn at the close.
    sa.Column("lightning", sa.Text, nullable=True),
    sa.Index("ix_shared_coups_table", "table_id", "id"),
    sa.Index("ix_shared_coups_shoe", "shoe_id", "number", unique=True),
)

shared_tables = sa.Table(
    "shared_tables",
    metadata,
    sa.Column("table_id", sa.Text, primary_key=True),
    sa.Column("shoe_id", Id, sa.ForeignKey("shared_shoes.id"), nullable=True),
    sa.Column("coup_id", Id, sa.ForeignKey("shared_coups.id"), nullable=True),
    sa.Column("watched_until_us", sa.BigInteger, nullable=False),
)

shared_bets = sa.Table(
    "shared_bets",
    metadata,
    sa.Column("coup_id", Id, sa.ForeignKey("shared_coups.id"), primary_key=True),
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("mode", sa.Text, primary_key=True),
    sa.Column("bets", sa.Text, nullable=False),  # JSON: {bet: stake}
    sa.Column("stake", sa.BigInteger, nullable=False),  # held in escrow until settled
    sa.Column("round_id", sa.Text, nullable=True),  # the round that settled them
    sa.Column("updated_us", sa.BigInteger, nullable=False),
    # Bets of an operator's session (revision 0020): the operator's round holding the stake
    # (not our escrow).
    sa.Column("operator_round", sa.Text, nullable=True),
    # Multiplier baccarat (migration 0025): the fee held with the stake (never returned).
    sa.Column("fee", sa.BigInteger, nullable=False, server_default="0"),
    sa.CheckConstraint(MODES, name="mode"),
    sa.CheckConstraint("stake >= 0", name="stake"),
    sa.Index("ix_shared_bets_round", "round_id", unique=True),
    sa.Index("ix_shared_bets_player", "player_id", "coup_id"),
    sa.Index("ix_shared_bets_operator_round", "operator_round"),
)

# Favourite bets (revision 0027, docs/jurisdictions.md): a player's named bet layouts, up to
# five per table kind.
favourite_bets = sa.Table(
    "favourite_bets",
    metadata,
    sa.Column("player_id", Id, sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("kind", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("bets", sa.Text, nullable=False),  # JSON: {bet: stake}
    sa.Column("created_us", sa.BigInteger, nullable=False),
)
