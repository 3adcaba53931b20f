"""``baccarat rng-report --dieharder``: the derivation's byte stream through Debian's
dieharder (the run skips where dieharder is not installed)."""

from __future__ import annotations

import pytest

from baccarat.cli import dieharder

from .support import run

SEED = "5eed" * 16
OUTPUT = """#=============================================================================#
        test_name   |ntup| tsamples |psamples|  p-value |Assessment
#=============================================================================#
   diehard_birthdays|   0|       100|       5|0.37910558|  PASSED
      sts_serial|  16|    100000|       5|0.00031000|   WEAK
"""


def test_dieharders_result_lines_are_read_and_its_banner_left_out() -> None:
    assert dieharder.parse(OUTPUT) == [
        {"test": "diehard_birthdays", "ntup": 0, "tsamples": 100, "psamples": 5,
         "p_value": 0.37910558, "assessment": "PASSED"},
        {"test": "sts_serial", "ntup": 16, "tsamples": 100000, "psamples": 5,
         "p_value": 0.00031, "assessment": "WEAK"},
    ]  # fmt: skip


def test_bad_test_numbers_are_refused_before_the_run(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "rng-report", "--shuffles", "10", "--dieharder", "birthdays")
    assert status == 2 and "test numbers like 0,1,2" in err


@pytest.mark.skipif(not dieharder.available(), reason="Debian's dieharder is not installed")
def test_the_report_carries_dieharders_p_values(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rng-report", "--shuffles", "50", "--server-seed", SEED,
                         "--dieharder", "0", "--dieharder-psamples", "2")  # fmt: skip
    assert status == 0
    assert "dieharder (Debian)" in out and "diehard_birthdays" in out
