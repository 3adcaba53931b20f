"""The report as the text of ``baccarat verify`` (``render``): the headline, the rounds and
their differences, the findings and notes, the summary.
"""

from __future__ import annotations

from .report import HistoryReport, Status


def render(report: HistoryReport, *, quiet: bool = False) -> list[str]:
    """The report as text, line by line (``baccarat verify``): the headline (the verdict, and
    what could not be checked), every round (with ``quiet``, those that are not verified)
    and its differences, the findings and notes, the summary."""
    out = [report.headline()]
    width = max((len(r.round_id) for r in report.rounds), default=0)
    for round_report in report.rounds:
        if quiet and round_report.status is Status.VERIFIED:
            continue
        out.append(f"line {round_report.line:>4}  {round_report.round_id:<{width}}  "
                   f"{round_report.verdict}")  # fmt: skip
        out += [f"    {difference}" for difference in round_report.differences]
    out += [f"finding: {finding}" for finding in report.findings]
    out += [f"note: {note}" for note in report.notes]
    out.append(report.summary())
    return out
