"""A stand-in for a drand beacon, run as its own process by the tests: drand's HTTP API for
one chain of the scheme bls-unchained-g1-rfc9380 (quicknet's), signing each round as drand
does with a key of its own.

    python drand_standin.py PORT SECRET GENESIS PERIOD

``GET /{chain}/info`` and ``GET /{chain}/public/{round}`` (404 for a round not published
yet). For the tests, its clock can be set (``POST /control/now`` with seconds since the
epoch: it runs on from there) and it can be held (``POST /control/hold``: no round is
published until ``POST /control/release``; a late beacon). It prints its chain's hash and
public key on its first line of output.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from baccarat.fairness.beacon import SCHEME, Chain, public_key, randomness, sign


class StandIn:
    def __init__(self, secret: int, genesis: int, period: int):
        key = public_key(secret)
        info = {"public_key": key, "period": period, "genesis_time": genesis,
                "schemeID": SCHEME, "metadata": {"beaconID": "stand-in"}}  # fmt: skip
        chain_hash = hashlib.sha256(json.dumps(info, sort_keys=True).encode()).hexdigest()
        self.chain = Chain(chain_hash, key, period, genesis)
        self.info = info | {"hash": chain_hash, "groupHash": chain_hash}
        self.secret = secret
        self.skew = 0.0
        self.held = False
        self.lock = threading.Lock()

    def now(self) -> float:
        return time.time() + self.skew

    def published(self) -> int:
        return 0 if self.held else self.chain.round_at(self.now())


def serve(port: int, stand_in: StandIn) -> None:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return None

        def answer(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            parts = self.path.strip("/").split("/")
            if parts[0] != stand_in.chain.hash:
                self.answer(404, {"error": "unknown chain"})
            elif parts[1:] == ["info"]:
                self.answer(200, stand_in.info)
            elif len(parts) == 3 and parts[1] == "public" and parts[2].isdigit():
                number = int(parts[2])
                if not 0 < number <= stand_in.published():
                    self.answer(404, {"error": "round not published yet"})
                    return
                signature = sign(stand_in.secret, number)
                self.answer(200, {"round": number, "signature": signature,
                                  "randomness": randomness(signature)})  # fmt: skip
            else:
                self.answer(404, {"error": "not found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with stand_in.lock:
                if self.path == "/control/now":
                    stand_in.skew = float(body["now"]) - time.time()
                elif self.path == "/control/hold":
                    stand_in.held = True
                elif self.path == "/control/release":
                    stand_in.held = False
            self.answer(200, {"published": stand_in.published()})

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(json.dumps({"chain": stand_in.chain.hash, "public_key": stand_in.chain.public_key,
                      "port": server.server_address[1]}), flush=True)  # fmt: skip
    server.serve_forever()


if __name__ == "__main__":
    port, secret, genesis, period = (int(a) for a in sys.argv[1:5])
    serve(port, StandIn(secret, genesis, period))
