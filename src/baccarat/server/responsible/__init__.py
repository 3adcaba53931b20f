"""Responsible gaming (real money): limits, reality checks, time-out and self-exclusion.

``checks`` holds what the money paths call inside their transaction (``admit_round``,
``admit_deposit``, ``admit_seat``, ``banker_problem``); ``changes`` what the player sets and
reads; ``periods`` the calendar periods in UTC. docs/responsible-gaming.md explains the rules.
"""

from .changes import (
    acknowledge,
    overview,
    peek,
    self_exclude,
    set_limits,
    set_reality_check,
    time_out,
)
from .checks import (
    admit_banked_round,
    admit_deposit,
    admit_round,
    admit_seat,
    audit_log,
    banker_problem,
    check_stake,
    unadmit_banked_round,
    unadmit_round,
)

__all__ = [
    "acknowledge", "admit_banked_round", "admit_deposit", "admit_round", "admit_seat",
    "audit_log", "banker_problem", "check_stake", "overview", "peek", "self_exclude", "set_limits",
    "set_reality_check", "time_out", "unadmit_banked_round", "unadmit_round",
]  # fmt: skip
