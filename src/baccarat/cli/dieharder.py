"""``baccarat rng-report --dieharder 0,1,...``: the shuffle derivation's byte stream fed to
Debian's ``dieharder`` (``apt-get install dieharder``), one test at a time, each test's
p-values reported beside the card-level tests.

The stream is what a shuffle draws from: HMAC-SHA256(server seed, client seed:nonce:block)
blocks (``fairness.derive.byte_stream``), the first ``BYTES_PER_NONCE`` bytes of each nonce
in turn (an 8-deck shuffle draws 416 numbers of 4 bytes, and a few more on rejection),
from the nonce after the card-level tests' last; dieharder reads it as raw input (-g 200).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading
from typing import Any

BYTES_PER_NONCE = 2048
BLOCK = 32


def available() -> bool:
    return shutil.which("dieharder") is not None


def _feed(pipe: Any, server_seed: str, client_seed: str, first_nonce: int) -> None:
    from baccarat.fairness.derive import byte_stream

    nonce = first_nonce
    try:
        while True:
            stream = byte_stream(server_seed, client_seed, nonce)
            pipe.write(b"".join(next(stream) for _ in range(BYTES_PER_NONCE // BLOCK)))
            nonce += 1
    except (BrokenPipeError, ValueError, OSError):
        return  # dieharder has read what it needs and closed its input


def parse(output: str) -> list[dict[str, Any]]:
    """dieharder's result lines: test|ntup|tsamples|psamples|p-value|assessment."""
    results = []
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) != 6 or line.lstrip().startswith("#") or cells[0] == "test_name":
            continue
        try:
            p_value = float(cells[4])
        except ValueError:
            continue
        results.append({"test": cells[0], "ntup": int(cells[1]), "tsamples": int(cells[2]),
                        "psamples": int(cells[3]), "p_value": p_value,
                        "assessment": cells[5]})  # fmt: skip
    return results


def run(
    tests: list[int], server_seed: str, client_seed: str, first_nonce: int,
    psamples: int | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """Each dieharder test (by number, as ``dieharder -l`` lists them) on the stream."""
    results = []
    for number in tests:
        command = ["dieharder", "-g", "200", "-d", str(number)]
        if psamples is not None:
            command += ["-p", str(psamples)]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        fed = (process.stdin, server_seed, client_seed, first_nonce)
        feeder = threading.Thread(target=_feed, args=fed, daemon=True)
        feeder.start()
        with process.stdout:
            output = process.stdout.read().decode("utf-8", "replace")
        process.wait()
        feeder.join(timeout=5)
        # What the feeder still had buffered cannot go anywhere: not an error of ours (a
        # BrokenPipeError here would read as our own reader gone, cli.main's case).
        with contextlib.suppress(OSError):
            process.stdin.close()
        found = parse(output)
        if not found:
            raise ValueError(f"dieharder -d {number} gave no result: {output.strip()[-200:]}")
        results += [r | {"dieharder_test": number} for r in found]
    return results
