"""A cheating operator, scripted: the exports it would produce, and honest ones beside them.

Every export here is built with ``baccarat.fairness`` as a server would build it, so the
cards, money and commitments of every line are right; what the cheat changes is which
shuffles and cards the player was dealt, which lines the export holds, or what a void did.
``cases()`` is also the source of ``tests/data/export_vectors.json``, which the browser's
verifier reads too (regenerate it with ``python -m tests.fairness.cheats``): each case has
the lines of the export and what a verifier must say, known from how the case was built.
Beside them, ``mixed_cases()`` reads an honest export played on a game server
(``mixed.py``, tests/data/mixed_export.json) and what becomes of it in a cheat's hands.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

from baccarat.core import Bets, Outcome, burn_count, get_rules, play_coup, settle
from baccarat.fairness import commitment, shuffled_order
from baccarat.fairness.beacon import GENESIS, QUICKNET, chain_entry, public_key, randomness, sign
from baccarat.fairness.example import example_history
from baccarat.fairness.history import (
    FairnessRecord,
    HandRecord,
    RoundRecord,
    export_round,
    parse_record,
    seat_client_seed,
    void_export,
)
from baccarat.fairness.signing import (
    RECEIPTS_FORMAT,
    PublicKeys,
    Receipt,
    Signer,
    parse_keys,
    parse_receipts,
    private_key,
)

__all__ = [
    "CASINO",
    "EXPORT_VECTORS_PATH",
    "cases",
    "cut_short",
    "honest",
    "seat",
    "skipping_cards",
    "skipping_nonces",
    "void_export",
]

EXPORT_VECTORS_PATH = Path(__file__).resolve().parents[1] / "data" / "export_vectors.json"
# An honest export played on a server (tests/fairness/mixed.py), with its browser's receipts.
MIXED_EXPORT_PATH = EXPORT_VECTORS_PATH.with_name("mixed_export.json")
SEED = "5eed" * 16
CLIENT = "auditor"
STAKE = 1_000
# The casino's signing key, and a key that is not the casino's (any 32 bytes, base64).
CASINO_KEY = "Y2FzaW5vLXNpZ25pbmcta2V5LW9mLXRoZS12ZWN0b3Q="
CASINO = Signer(private_key(CASINO_KEY))
FORGER = Signer(private_key("Zm9yZ2VyLXNpZ25pbmcta2V5LW9mLXRoZS12ZWN0b3I="))


def _line(rules_name: str, nonce: int, cut: int | None, position: int, balance: int,
          index: int, order: Any, *, bets: Bets | None = None) -> dict[str, Any]:  # fmt: skip
    rules = get_rules(rules_name)
    coup = play_coup(order[position:])
    bets = bets or Bets(player=STAKE)
    fairness = FairnessRecord(SEED, commitment(SEED), CLIENT, nonce, cut, position)
    return export_round(
        round_id=f"r_{index:06d}", rules=rules, fairness=fairness, coup=coup,
        settlement=settle(rules, bets, coup), balance_before=balance, table_id=rules_name,
        mode="fun", time=None,
    ).to_json()  # fmt: skip


def _published(lines: list[dict[str, Any]], nonces_used: int) -> list[dict[str, Any]]:
    """The lines as exported once the seed is revealed: with the count published then."""
    for line in lines:
        line["fairness"] |= {"nonces_used": nonces_used, "undealt_shoes": []}
    return lines


def skipping_nonces(rounds: int = 40, rules: str = "single-deck") -> list[dict[str, Any]]:
    """Fresh shuffles: for each Player bet, nonces are skipped until the bet loses. The
    operator publishes how many nonces it really gave out."""
    lines: list[dict[str, Any]] = []
    balance, nonce = 100_000, 0
    decks = get_rules(rules).decks
    while len(lines) < rounds:
        order = shuffled_order(SEED, CLIENT, nonce, decks)
        if play_coup(order).winner is Outcome.BANKER:
            line = _line(rules, nonce, None, 0, balance, len(lines) + 1, order)
            balance = line["balance_after"]
            lines.append(line)
        nonce += 1
    return _published(lines, nonce)


def skipping_cards(rounds: int = 30, rules: str = "mini") -> list[dict[str, Any]]:
    """One cut shoe: before each Player bet, cards are burned one by one until it loses."""
    table = get_rules(rules)
    cut = 200
    order = shuffled_order(SEED, CLIENT, 0, table.decks, cut)
    position = 1 + burn_count(order[0]) if table.burn else 0
    assert table.cut_card_position is not None
    lines: list[dict[str, Any]] = []
    balance = 100_000
    while len(lines) < rounds and position < table.cut_card_position:
        coup = play_coup(order[position:])
        if coup.winner is not Outcome.BANKER:
            position += 1
            continue
        line = _line(rules, 0, cut, position, balance, len(lines) + 1, order)
        balance = line["balance_after"]
        lines.append(line)
        position += len(coup.player.cards) + len(coup.banker.cards)
    return _published(lines, 1)


def cut_short(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An export doctored to be consistent in itself: its last round (of fresh shuffles:
    the seed's last nonce) removed and ``nonces_used`` lowered by one on every line. Nothing
    but the casino's signature of each line (which covers ``nonces_used``) tells it apart."""
    doctored = copy.deepcopy(lines[:-1])
    for line in doctored:
        line["fairness"]["nonces_used"] -= 1
    return doctored


def honest(rules: str = "single-deck", rounds: int = 12) -> list[dict[str, Any]]:
    return example_history(get_rules(rules), rounds, server_seed=SEED, client_seed=CLIENT,
                           random=random.Random(rules))  # fmt: skip


BANKER_CLIENT, PLAYER_CLIENT = 'banker "b"', "player:p"
# A stand-in beacon chain (not a known public one): its key, a round and when it was out.
BEACON_SECRET = 0x5EED
BEACON_CHAIN = "5eed" * 16
BEACON_ROUND, BEACON_PUBLISHED_US = 13, 1_790_000_002_000_000
STANDIN = {"chain": BEACON_CHAIN, "public_key": public_key(BEACON_SECRET),
           "round": BEACON_ROUND, "published_us": BEACON_PUBLISHED_US}  # fmt: skip
# A round of drand's quicknet as its API serves it (docs/fairness.md, vector 7).
QUICKNET_ROUND = 657413
QUICKNET_SIGNATURE = (
    "b713718a38ae728dfd477991af2822e08d2f305e4771"
    "8cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b"
)
QUICKNET_NAMED = {"chain": QUICKNET.hash, "public_key": QUICKNET.public_key,
                  "round": QUICKNET_ROUND,
                  "published_us": QUICKNET.time_of(QUICKNET_ROUND) * 10**6}  # fmt: skip
# A signature that is not the chain's: round 657413's with its 21st byte changed.
FORGED_SIGNATURE = (
    QUICKNET_SIGNATURE[:40] + f"{int(QUICKNET_SIGNATURE[40:42], 16) ^ 1:02x}"
    + QUICKNET_SIGNATURE[42:]
)  # fmt: skip


_NAMED_IN_TIME = object()  # ``shared_shoe``'s commit entry: 1.5 s before the round is out


def shared_shoe(
    coups: int = 6, *, beacon: dict[str, Any] | None = STANDIN, signature: str | None = None,
    named_at: Any = _NAMED_IN_TIME, nonce: int = 0,
) -> list[dict[str, Any]]:  # fmt: skip
    """A shared table's shoe record (``GET /api/tables/{id}/shoes/{shoe}``) as the server
    makes it: the coups from the end of the burn, no bets, the table's log of the shoe on
    every line (its commitment; with a ``beacon`` (the commit entry's), the round named
    before it was out (or at the commit entry's ``named_at``), with its ``signature``, by
    default the stand-in's; the reveal). A cheat deals it from another ``nonce`` than the
    seed's one shuffle, 0."""
    rules = get_rules("classic-8deck")
    published = beacon["published_us"] if beacon else BEACON_PUBLISHED_US
    committed, base, time_us = commitment(SEED), "speed/1", published - 1_500_000
    named = time_us if named_at is _NAMED_IN_TIME else named_at
    log = [chain_entry({"seq": 1, "table": "speed", "time_us": named, "type": "commit",
                        "shoe": 1, "number": 1, "commitment": committed, "client_seed": base,
                        "rules": rules.name, "beacon": beacon}, GENESIS)]  # fmt: skip
    client = base
    if beacon:
        signature = signature or sign(BEACON_SECRET, beacon["round"])
        client = f"{base}/{randomness(signature)}"
        log.append(chain_entry({"seq": 2, "table": "speed", "time_us": published,
                                "type": "beacon", "shoe": 1, "chain": beacon["chain"],
                                "round": beacon["round"], "signature": signature,
                                "randomness": randomness(signature), "client_seed": client},
                               log[-1]["hash"]))  # fmt: skip
    order = shuffled_order(SEED, client, nonce, rules.decks, 0)
    position = 1 + burn_count(order[0])
    records = []
    for number in range(1, coups + 1):
        coup = play_coup(order[position:])
        records.append(RoundRecord(
            line=0, id=f"speed/shoe-1/coup-{number}", rules=rules, rules_name=rules.name,
            fairness=FairnessRecord(SEED, committed, client, nonce, 0, position, None, None),
            player=HandRecord(coup.player.cards, coup.player.scores),
            banker=HandRecord(coup.banker.cards, coup.banker.scores), winner=coup.winner,
            bets=(), win=0, balance_before=0, balance_after=0, void_reason=None,
            table_id="speed",
        ))  # fmt: skip
        position += len(coup.player.cards) + len(coup.banker.cards)
    log.append(chain_entry({"seq": len(log) + 1, "table": "speed", "time_us": time_us + 10**8,
                            "type": "reveal", "shoe": 1, "commitment": committed,
                            "server_seed": SEED, "ending": "cancelled", "coups": coups},
                           log[-1]["hash"]))  # fmt: skip
    return [record.to_json() | {"table_log": log} for record in records]


def seat(rounds: int = 8, rules_name: str = "single-deck", fee: int = 10,
         sources: tuple[str, ...] = ("client",), client: str | None = None,
         ) -> list[dict[str, Any]]:  # fmt: skip
    """A player-banked seat, as the banker exports it once the seat ended: the seat's own
    seed, both client seeds (the banker's first), the banker's balances and fee; each
    round's banker seed source from ``sources`` (cycled). A cheat deals from another
    ``client`` seed and says both participants' seeds were used."""
    rules = get_rules(rules_name)
    client = client or seat_client_seed(BANKER_CLIENT, PLAYER_CLIENT)
    rng = random.Random(rules_name)
    lines, balance = [], 200_000
    for nonce in range(rounds):
        order = shuffled_order(SEED, client, nonce, rules.decks)
        coup = play_coup(order)
        bets = Bets(**{rng.choice(["player", "banker", "tie"]): STAKE})
        source = sources[nonce % len(sources)]
        fairness = FairnessRecord(SEED, commitment(SEED), client, nonce, None, 0, rounds, (),
                                  source, (BANKER_CLIENT, PLAYER_CLIENT))  # fmt: skip
        settlement = settle(rules, bets, coup)
        player_side = export_round(
            round_id=f"r_seat{nonce:02d}", rules=rules, fairness=fairness, coup=coup,
            settlement=settlement, balance_before=0, table_id="banked-" + rules_name,
            mode="fun", time=None,
        ).to_json()  # fmt: skip
        after = balance + settlement.staked - settlement.returned - fee
        banker_side = {"role": "banker", "fee": fee,
                       "banked": {"role": "banker", "seat_id": "banked.1"}}  # fmt: skip
        line = player_side | {"balance_before": balance, "balance_after": after} | banker_side
        parse_record(line)  # as the server writes it
        lines.append(line)
        balance = after
    return lines


def winning_line(lines: list[dict[str, Any]]) -> int:
    """The index of a middle line whose bets returned more than they staked."""
    for index in range(1, len(lines) - 1):
        line = lines[index]
        if line["win"] > sum(bet["stake"] for bet in line["bets"].values()):
            return index
    raise AssertionError("no winning round in the sample")


def _moved(line: dict[str, Any]) -> int:
    """1 if a line removed from the chain moved the balance (the next line then breaks it)."""
    return int(line["balance_after"] != line["balance_before"])


def other_card(card: str) -> str:
    rank = "A23456789TJQK"
    return rank[(rank.index(card[0]) + 1) % 13] + card[1]


def cases() -> list[dict[str, Any]]:
    """Whole exports and what a verifier must say of each (by construction)."""
    fresh, mini = honest("single-deck", 12), honest("mini", 80)
    out: list[dict[str, Any]] = []

    def case(name: str, lines: list[dict[str, Any]], **expect: Any) -> None:
        statuses = expect.pop("statuses", None) or ["verified"] * len(lines)
        ok = expect.pop("ok", True)
        # No keys here: an export in which nothing differs is not verified, only unchecked.
        verdict = "signatures_not_checked" if ok else "fails"
        out.append({"name": name, "lines": lines, "expect": {
            "ok": ok, "verdict": verdict, "statuses": statuses,
            "differences": expect.pop("differences", {}),
            "findings": expect.pop("findings", []), "voided_after_win": 0,
            "balance_breaks": 0, "server_client_seeds": 0} | expect})  # fmt: skip

    case("honest fresh shuffles", fresh)
    assert len({line["fairness"]["nonce"] for line in mini}) == 2, "two shoes"
    case("honest cut shoes", mini)

    skipped = skipping_nonces()
    case("nonces skipped until the Player bet loses", skipped, ok=False,
         findings=["nonce_gap"])  # fmt: skip

    cards = skipping_cards()
    starts = [line["fairness"]["position"] for line in cards]
    gapped = [
        i for i in range(1, len(cards))
        if starts[i] != starts[i - 1] + len(cards[i - 1]["player"]["cards"])
        + len(cards[i - 1]["banker"]["cards"])
    ]  # fmt: skip
    order = shuffled_order(SEED, CLIENT, 0, get_rules("mini").decks, cards[0]["fairness"]["cut"])
    if starts[0] != 1 + burn_count(order[0]):
        gapped.insert(0, 0)
    case("cards skipped until the Player bet loses", cards, ok=False,
         statuses=["differs" if i in gapped else "verified" for i in range(len(cards))],
         differences={str(i + 1): ["fairness.position"] for i in gapped})  # fmt: skip

    # The casino signed each line, nonces_used with it: without its keys, nothing differs.
    case("the last round removed and nonces_used lowered, without the keys",
         cut_short(signed(fresh)))  # fmt: skip

    missing = copy.deepcopy(fresh)
    gone = missing.pop(5)
    case("a round removed from the middle", missing, ok=False, findings=["nonce_gap"],
         balance_breaks=_moved(gone))  # fmt: skip

    coup_gone = copy.deepcopy(mini)
    gone = coup_gone.pop(4)
    case("a coup removed from the middle of a shoe", coup_gone, ok=False,
         statuses=["differs" if i == 4 else "verified" for i in range(len(coup_gone))],
         differences={"5": ["fairness.position"]}, balance_breaks=_moved(gone))  # fmt: skip

    changed = copy.deepcopy(fresh)
    changed[3]["player"]["cards"][1] = other_card(changed[3]["player"]["cards"][1])
    card_fields = ["player.cards"]
    statuses = ["differs" if i == 3 else "verified" for i in range(len(fresh))]
    case("a card changed", changed, ok=False, statuses=statuses,
         differences={"4": card_fields})  # fmt: skip

    nulled = copy.deepcopy(changed)
    nulled[3]["fairness"]["server_seed"] = None
    case("a card changed and its seed nulled", nulled, ok=False, statuses=statuses,
         differences={"4": card_fields})  # fmt: skip

    voided = copy.deepcopy(fresh)
    won = winning_line(voided)
    voided[won] = void_export(voided[won], "malfunction")
    # Voided after the next round was dealt: that round began with the payout in hand.
    case("a void after a win", voided,
         statuses=["voided" if i == won else "verified" for i in range(len(fresh))],
         voided_after_win=1, balance_breaks=1)  # fmt: skip

    # Multiplier baccarat: the multiplier cards have their own stream of the seed.
    lit = honest("multiplier", 30)
    case("honest multiplier rounds", lit)
    lit_shoe = honest("multiplier-shoe", 80)
    assert len({line["fairness"]["nonce"] for line in lit_shoe}) == 2, "two shoes"
    case("honest multiplier cut shoes", lit_shoe)
    struck = copy.deepcopy(lit)
    first = struck[2]["lightning"][0]
    first["multiplier"] = 8 if first["multiplier"] != 8 else 2
    case("a multiplier card's multiplier changed", struck, ok=False,
         statuses=["differs" if i == 2 else "verified" for i in range(len(lit))],
         differences={"3": ["lightning.0"]})  # fmt: skip
    index, bet = next(
        (i, name) for i, line in enumerate(lit)
        for name, placed in line["bets"].items() if placed.get("multiplier", 1) > 1
    )  # fmt: skip
    unmultiplied = copy.deepcopy(lit)
    unmultiplied[index]["bets"][bet]["multiplier"] = 1
    case("a multiplied win said to be multiplied by 1", unmultiplied, ok=False,
         statuses=["differs" if i == index else "verified" for i in range(len(lit))],
         differences={str(index + 1): [f"bets.{bet}.multiplier"]})  # fmt: skip

    banked = seat()
    case("honest player-banked seat, the banker's export", banked)
    case("a seat whose banker never set a client seed", seat(sources=("client", "server")),
         server_client_seeds=4)  # fmt: skip
    seat_card = copy.deepcopy(banked)
    seat_card[2]["banker"]["cards"][0] = other_card(seat_card[2]["banker"]["cards"][0])
    case("a card changed at a seat", seat_card, ok=False,
         statuses=["differs" if i == 2 else "verified" for i in range(len(banked))],
         differences={"3": ["banker.cards"]})  # fmt: skip
    # Dealt from the player's client seed alone (the banker's left out), said to be both's.
    one_seed = seat(client=PLAYER_CLIENT)
    lines = [str(i + 1) for i in range(len(banked))]
    case("a seat dealt from one client seed", one_seed, ok=False,
         statuses=["differs"] * len(banked),
         differences={line: ["fairness.client_seed"] for line in lines})  # fmt: skip
    seat_gone = copy.deepcopy(banked)
    gone = seat_gone.pop(3)
    case("a round removed from a seat", seat_gone, ok=False, findings=["nonce_gap"],
         balance_breaks=_moved(gone))  # fmt: skip

    case("a shared shoe with its beacon round, its log whole", shared_shoe())
    case("a shared shoe dealt offline (no beacon)", shared_shoe(beacon=None))
    rewritten = shared_shoe()
    for line in rewritten:
        line["table_log"][-1]["server_seed"] = "c0de" * 16  # the reveal rewritten
    fields = ["table_log", "table_log.reveal.server_seed"]
    case("a shared shoe whose log was rewritten", rewritten, ok=False,
         statuses=["differs"] * len(rewritten),
         differences={str(i + 1): fields for i in range(len(rewritten))})  # fmt: skip
    skipped = shared_shoe(8)
    del skipped[3]
    case("a coup left out of a shared shoe's record", skipped, ok=False,
         statuses=["differs" if i == 3 else "verified" for i in range(len(skipped))],
         differences={"4": ["fairness.position"]})  # fmt: skip

    def every_line(shoe: list[dict[str, Any]], *fields: str) -> dict[str, Any]:
        lines = [str(i + 1) for i in range(len(shoe))]
        return {"ok": False, "statuses": ["differs"] * len(shoe),
                "differences": {line: list(fields) for line in lines}}  # fmt: skip

    # The operator picks, once the beacon is out, which shuffle of the shoe's seed to deal.
    chosen = shared_shoe(nonce=1)
    case("a shared shoe dealt from another shuffle of its seed than its one (nonce 1)", chosen,
         **every_line(chosen, "fairness.nonce"))  # fmt: skip
    quicknet = shared_shoe(beacon=QUICKNET_NAMED, signature=QUICKNET_SIGNATURE)
    case("a shared shoe with drand quicknet's round, its log whole", quicknet)
    # The operator chooses the shoe's randomness: a signature of its own (the real one with a
    # byte changed), the log and the client seed made from it, consistent in themselves.
    case("a shared shoe whose quicknet signature was changed",
         shared_shoe(beacon=QUICKNET_NAMED, signature=FORGED_SIGNATURE),
         **every_line(quicknet, "table_log.beacon.signature"))  # fmt: skip
    # A point on G1, but the stand-in chain's signature of another round.
    other_round = shared_shoe(signature=sign(BEACON_SECRET, BEACON_ROUND + 1))
    case("a shared shoe with another round's signature", other_round,
         **every_line(other_round, "table_log.beacon.signature"))  # fmt: skip
    # A round that is no round: no signature is its (the stand-in's of round 13 given).
    no_round = shared_shoe(beacon=STANDIN | {"round": -1}, signature=sign(BEACON_SECRET, 13))
    case("a shared shoe naming round -1", no_round,
         **every_line(no_round, "table_log.beacon.signature"))  # fmt: skip
    # A chain of the operator's whose key and signature are both the point at infinity:
    # the pairing holds for any round, so it is no signature at all (a key that is not a
    # key; IETF BLS's KeyValidate refuses it, as noble does).
    infinite = STANDIN | {"public_key": "c0" + "00" * 95}
    nowhere = shared_shoe(beacon=infinite, signature="c0" + "00" * 47)
    case("a shared shoe whose beacon key and signature are the point at infinity", nowhere,
         **every_line(nowhere, "table_log.beacon.signature"))  # fmt: skip
    # The round named at no time a verifier can compare (none, text): it proves nothing.
    for named_at in (None, "soon"):
        untimed = shared_shoe(named_at=named_at)
        case(f"a shared shoe whose log names its round at {json.dumps(named_at)}", untimed,
             **every_line(untimed, "table_log.commit.time_us"))  # fmt: skip
    # The same log with its times written as 1790000000500000.0: one number in JSON, as the
    # browser reads it; the chain's hashes are of the whole numbers, as a server made them.
    fractional = copy.deepcopy(shared_shoe())
    for line in fractional:
        commit = line["table_log"][0]
        commit["time_us"] = float(commit["time_us"])
        commit["beacon"]["published_us"] = float(commit["beacon"]["published_us"])
    case("a shared shoe whose log writes its times with a fraction of zero", fractional)
    # Quicknet named, with a key of the operator's, which signed the round.
    own_key = QUICKNET_NAMED | {"public_key": public_key(BEACON_SECRET)}
    case("a shared shoe naming quicknet with another public key",
         shared_shoe(beacon=own_key, signature=sign(BEACON_SECRET, QUICKNET_ROUND)),
         **every_line(quicknet, "table_log.commit.beacon.public_key",
                      "table_log.beacon.signature"))  # fmt: skip
    return out


def signed(lines: list[dict[str, Any]], signer: Signer = CASINO) -> list[dict[str, Any]]:
    return [signer.sign_line(copy.deepcopy(line)) for line in lines]


def receipts(*shown: tuple[str, str], signer: Signer = CASINO) -> dict[str, Any]:
    """A browser's receipts file: each (commitment, time) shown before play at the table,
    signed by ``signer``, with the casino's published key."""
    kept = [
        {"commitment": commit, "mode": "fun", "table": "single-deck", "seen": time}
        | signer.sign_commitment(commit, "fun", time)
        for commit, time in shown
    ]
    return {"format": RECEIPTS_FORMAT, "signing_keys": CASINO.keys_json(), "receipts": kept}


def fabricated(rounds: int = 12) -> list[dict[str, Any]]:
    """A history made up afterwards: the honest rounds' bets, another seed chosen to give
    other cards, and its commitment recomputed: consistent in itself."""
    return example_history(get_rules("single-deck"), rounds, server_seed="fa1e" * 16,
                           client_seed=CLIENT, random=random.Random("single-deck"))  # fmt: skip


def signature_cases() -> list[dict[str, Any]]:
    """Signed exports and receipts: what a verifier with the casino's public key says."""
    keys = CASINO.keys_json()
    fresh = honest("single-deck", 12)
    every = [str(i) for i in range(1, len(fresh) + 1)]
    out: list[dict[str, Any]] = []

    def case(name: str, lines: list[dict[str, Any]], **expect: Any) -> None:
        inputs: dict[str, Any] = {k: expect.pop(k) for k in ("keys", "receipts") if k in expect}
        differing = expect.pop("differing", {})
        statuses = ["differs" if str(i + 1) in differing else
                    "unverifiable" if line["fairness"]["server_seed"] is None else "verified"
                    for i, line in enumerate(lines)]  # fmt: skip
        ok = not differing and not expect.get("findings")
        # Keys in every case here (given, or the receipts'): the signatures are checked.
        out.append({"name": name, "lines": lines, **inputs, "expect": {
            "ok": ok, "verdict": "verified" if ok else "fails", "statuses": statuses,
            "differences": differing, "findings": expect.pop("findings", []),
            "voided_after_win": 0, "balance_breaks": 0, "server_client_seeds": 0}})  # fmt: skip

    case("an honest export, signed", signed(fresh), keys=keys)
    case("the last round removed and nonces_used lowered, with the keys",
         cut_short(signed(fresh)), keys=keys,
         differing={line: ["signature"] for line in every[:-1]})  # fmt: skip
    made_up = fabricated()
    case("a history fabricated afterwards, unsigned", made_up, keys=keys,
         differing={line: ["signature"] for line in every})  # fmt: skip
    case("a history fabricated afterwards, signed with another key", signed(made_up, FORGER),
         keys=keys, differing={line: ["signature"] for line in every})  # fmt: skip
    changed = signed(fresh)
    changed[3]["player"]["cards"][1] = other_card(changed[3]["player"]["cards"][1])
    case("a signed line changed afterwards", changed, keys=keys,
         differing={"4": ["player.cards", "signature"]})  # fmt: skip
    before = "2026-01-01T11:59:00Z"
    shown = receipts((commitment(SEED), before))
    case("an honest export against its receipts", signed(fresh), receipts=shown)
    swapped = receipts((commitment("c0de" * 16), before))
    case("a swapped commitment: not the one the receipt shows", signed(fresh),
         receipts=swapped, differing={line: ["fairness.commitment"] for line in every})  # fmt: skip
    late = receipts((commitment(SEED), before))
    late["receipts"][0]["seen"] = "2026-01-01T13:00:00Z"  # after every round (12:00-12:06)
    case("a receipt this browser kept only after play", signed(fresh), receipts=late)
    forged = receipts((commitment(SEED), before), signer=FORGER)
    case("a receipt not signed by the casino", signed(fresh), receipts=forged,
         findings=["receipt"])  # fmt: skip
    # Times are whole seconds: a receipt stamped in a round's second was shown before it
    # only if a line before the round was dealt under it.
    shown = receipts((commitment(NEXT_SEED), ROTATED))
    case("a rotation in the second of a round, by a client whose seed this browser never "
         "kept: the new commitment's receipt, stamped that second, came after the round",
         rotated_in_a_rounds_second(), receipts=shown)  # fmt: skip
    unshown = rotated_in_a_rounds_second(cheat=True)
    case("a round dealt from a seed never shown, in the second of the rotation, after a "
         "round under the new commitment", unshown, receipts=shown,
         differing={str(len(unshown)): ["fairness.commitment"]})  # fmt: skip
    return out


NEXT_SEED = "7e57" * 16  # the seed a rotation makes
ROTATED = "2026-01-01T12:01:30Z"  # the second of honest()'s fourth round


def _dealt(seed: str, rounds: int, after: list[dict[str, Any]], times: list[str],
           revealed: bool = True) -> list[dict[str, Any]]:  # fmt: skip
    """``rounds`` fresh shuffles of ``seed`` (nonces from 0) at ``times``, the rounds
    ``after`` continued: their ids and balance."""
    lines = example_history(get_rules("single-deck"), rounds, server_seed=seed,
                            client_seed=CLIENT, random=random.Random(seed),
                            balance=after[-1]["balance_after"], revealed=revealed)  # fmt: skip
    for number, (line, time) in enumerate(zip(lines, times, strict=True), len(after) + 1):
        line |= {"id": f"r_{number:06d}", "time": time}
    return after + lines


def rotated_in_a_rounds_second(cheat: bool = False) -> list[dict[str, Any]]:
    """Fresh shuffles played by an API client, then a rotation in the second of the last of
    them (``ROTATED``), which reveals their seed; the player's browser, which never kept that
    seed's commitment, keeps the new one's (stamped that second) and plays two rounds under
    it. The cheat: in that second, after the first round under the new commitment, a round
    dealt from a seed nobody was shown. Signed by the casino."""
    if cheat:
        before = honest("single-deck", 3)
        under_new = _dealt(NEXT_SEED, 1, before, [ROTATED], revealed=False)
        return signed(_dealt("c0de" * 16, 1, under_new, [ROTATED]))
    before = honest("single-deck", 4)
    assert before[-1]["time"] == ROTATED
    later = ["2026-01-01T12:02:00Z", "2026-01-01T12:02:30Z"]
    return signed(_dealt(NEXT_SEED, 2, before, later, revealed=False))


def redealt(lines: list[dict[str, Any]], seed: str) -> list[dict[str, Any]]:
    """Rounds dealt again from another server seed (and its commitment), their bets settled
    on the new cards and the balance carried from line to line, each signed by the casino:
    consistent in itself, but under a commitment nobody was shown before play."""
    out: list[dict[str, Any]] = []
    balance = lines[0]["balance_before"]
    for line in lines:
        record = parse_record(line)
        fairness = replace(record.fairness, server_seed=seed, commitment=commitment(seed))
        order = shuffled_order(seed, fairness.client_seed, fairness.nonce, record.rules.decks)
        coup = play_coup(order)
        bets = Bets(**{bet.bet: bet.stake for bet in record.bets})
        again = export_round(
            round_id=record.id, rules=record.rules, fairness=fairness, coup=coup,
            settlement=settle(record.rules, bets, coup), balance_before=balance,
            table_id=record.table_id, mode=record.mode, time=record.time,
        ).to_json()  # fmt: skip
        balance = again["balance_after"]
        out.append(line | again)
    return signed(out)


def mixed_cases() -> list[dict[str, Any]]:
    """The honest mixed export played on a server (``mixed.py``) against its browser's
    receipts, and what becomes of it: a seat's rounds dealt again from a seed nobody was
    shown, and receipts that lack the seats' and shared shoes' commitments."""
    data = json.loads(MIXED_EXPORT_PATH.read_text(encoding="utf-8"))
    lines, receipts_kept, statuses = data["lines"], data["receipts"], data["statuses"]
    out: list[dict[str, Any]] = []

    def case(name: str, lines: list[dict[str, Any]], receipts: dict[str, Any],
             statuses: list[str], differences: dict[str, list[str]] | None = None,
             ) -> None:  # fmt: skip
        ok = not differences
        out.append({"name": name, "lines": lines, "receipts": receipts, "expect": {
            "ok": ok, "verdict": "verified" if ok else "fails", "statuses": statuses,
            "differences": differences or {}, "findings": [], "voided_after_win": 0,
            "balance_breaks": 0, "server_client_seeds": 0}})  # fmt: skip

    case("an honest mixed export (house, cut shoes, shared, seats; rotated and not) against "
         "its browser's receipts", lines, receipts_kept, statuses)  # fmt: skip
    # The first pair's rounds at the seat (revealed), dealt from a seed of the casino's choice.
    seat = [line for line, status in zip(lines, statuses, strict=True)
            if "banked" in line and status == "verified"]  # fmt: skip
    case("a seat's rounds dealt again from a seed never shown, signed by the casino",
         redealt(seat, "c0de" * 16), receipts_kept, ["differs"] * len(seat),
         {str(i + 1): ["fairness.commitment"] for i in range(len(seat))})  # fmt: skip
    # A browser that kept only the player's own commitments: the rounds not revealed yet
    # are not verifiable yet, whatever their commitment.
    pending = [line for line, status in zip(lines, statuses, strict=True)
               if status == "unverifiable"]  # fmt: skip
    shown = {line["fairness"]["commitment"] for line in lines if "banked" not in line
             and "shared" not in line}  # fmt: skip
    own = receipts_kept | {"receipts": [r for r in receipts_kept["receipts"]
                                        if r["commitment"] in shown]}  # fmt: skip
    case("rounds not revealed yet, against receipts without their seat's or shoe's "
         "commitment", pending, own, ["unverifiable"] * len(pending))  # fmt: skip
    return out


def inputs(case: dict[str, Any]) -> tuple[PublicKeys | None, list[Receipt] | None]:
    """What a case gives the verifier beside its lines: the casino's public keys (given, or
    those of the receipts file) and the receipts, as ``baccarat verify --keys --receipts``."""
    keys, kept = None, None
    if "receipts" in case:
        kept, held = parse_receipts(case["receipts"])
        keys = PublicKeys(held)
    if "keys" in case:
        keys = PublicKeys(parse_keys(case["keys"]))
    return keys, kept


def build() -> dict[str, Any]:
    return {
        "about": "Whole exports (baccarat-history/1) and what a verifier must say of each: "
        "the Python verifier (baccarat verify) and the browser's (verify.html) both read "
        "this file. Built by tests/fairness/cheats.py.",
        "cases": cases() + signature_cases() + mixed_cases(),
    }


def text(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


if __name__ == "__main__":
    EXPORT_VECTORS_PATH.write_text(text(build()), encoding="utf-8")
