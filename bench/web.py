"""Weigh and time the browser table in Debian's chromium against a real server.

Run: .venv/bin/python bench/web.py [--loads N] [--url http://127.0.0.1:8000]
Targets (issue 6): JS + CSS transferred for the table <= 150 KB uncompressed; first render
<= 1 s. Each load uses a fresh browser context (empty cache), logged in, at a table.
Without --url it starts `baccarat serve` on a free loopback port with a temporary SQLite
database, and stops it at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = os.environ.get("BACCARAT_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
BYTES_TARGET = 150 * 1024
RENDER_TARGET_MS = 1000.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server(url: str | None) -> Iterator[str]:
    if url:
        yield url.rstrip("/")
        return
    with tempfile.TemporaryDirectory() as data:
        port = free_port()
        command = [
            sys.executable,
            "-c",
            "import sys; from baccarat.cli import main; sys.exit(main())",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--database",
            f"sqlite:///{Path(data) / 'bench.db'}",
        ]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    urllib.request.urlopen(f"{base}/api/tables", timeout=2).read()
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit("the server did not start") from None
                    time.sleep(0.1)
            yield base
        finally:
            process.terminate()
            process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--url", default=None, help="an already running server")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with server(args.url) as base, sync_playwright() as playwright:
        tables = json.loads(urllib.request.urlopen(f"{base}/api/tables").read())
        table = next(t for t in tables if t["rules"]["shuffle"] == "fresh")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        nickname = "bench" + uuid.uuid4().hex[:8]
        credentials = {"nickname": nickname, "password": "bench password 1"}
        renders: list[float] = []
        paints: list[float] = []
        weights: list[tuple[int, int, int]] = []
        for i in range(args.loads):
            context = browser.new_context(viewport={"width": 1366, "height": 900})
            if i == 0:
                context.request.post(f"{base}/api/accounts", data=credentials)
            context.request.post(f"{base}/api/sessions", data=credentials)
            page = context.new_page()
            sizes: dict[str, int] = {}

            def record(response, sizes=sizes) -> None:  # type: ignore[no-untyped-def]
                kind = response.request.resource_type
                if kind in ("script", "stylesheet"):
                    sizes[response.url] = len(response.body())

            page.on("response", record)
            page.goto(f"{base}/#/table/{table['id']}")
            page.wait_for_selector("html[data-ready=true] .table-view [data-spot=player]")
            timing = page.evaluate(
                """() => ({
                ready: performance.getEntriesByName('baccarat-ready')[0].startTime,
                fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
            })"""
            )
            renders.append(float(timing["ready"]))
            paints.append(float(timing["fcp"] or 0))
            js = sum(size for url, size in sizes.items() if url.endswith(".js"))
            css = sum(size for url, size in sizes.items() if url.endswith(".css"))
            weights.append((js, css, len(sizes)))
            context.close()
        browser.close()

    js, css, files = max(weights)
    total = js + css
    ready = statistics.median(renders)
    fcp = statistics.median(paints)
    print(f"table page: {files} JS/CSS files, JS {js / 1024:.1f} KB + CSS {css / 1024:.1f} KB")
    print(
        f"JS + CSS transferred (uncompressed): {total / 1024:.1f} KB "
        f"(target <= {BYTES_TARGET // 1024} KB; {total / BYTES_TARGET:.0%} of it)"
    )
    print(
        f"first contentful paint: median {fcp:.0f} ms; table rendered and ready: median "
        f"{ready:.0f} ms, worst {max(renders):.0f} ms over {len(renders)} cold loads "
        f"(target <= {RENDER_TARGET_MS:.0f} ms; {ready / RENDER_TARGET_MS:.0%} of it)"
    )
    ok = total <= BYTES_TARGET and ready <= RENDER_TARGET_MS
    print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
