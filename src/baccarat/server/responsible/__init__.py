"""Responsible gaming (real money): limits, reality checks, time-out and self-exclusion.

``checks`` holds what the money paths call inside their transaction (``admit_round``,
``count``, ``uncount``, ``admit_deposit``, ``admit_seat``, ``banker_limits_problem``);
``changes`` what the player sets and reads; ``persons`` an operator's player's exclusion,
held in every currency of theirs; ``periods`` the calendar periods in UTC.
docs/responsible-gaming.md explains the rules.
"""

from baccarat.server.responsible.changes import (
    acknowledge,
    overview,
    peek,
    self_exclude,
    set_limits,
    set_reality_check,
    time_out,
)
from baccarat.server.responsible.checks import (
    STAKE_CHECK,
    admit_deposit,
    admit_operator_credit,
    admit_round,
    admit_seat,
    audit_log,
    banker_limits_problem,
    check_stake,
    count,
    uncount,
)
from baccarat.server.responsible.persons import inherit_exclusion, refuse_excluded_person

__all__ = [
    "STAKE_CHECK", "acknowledge", "admit_deposit", "admit_operator_credit", "admit_round",
    "admit_seat", "audit_log", "banker_limits_problem", "check_stake", "count",
    "inherit_exclusion", "overview", "peek", "refuse_excluded_person", "self_exclude",
    "set_limits", "set_reality_check", "time_out", "uncount",
]  # fmt: skip
