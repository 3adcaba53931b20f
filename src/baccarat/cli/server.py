"""``baccarat serve`` (the game server) and ``baccarat admin`` (the operator's commands)."""

from __future__ import annotations

import argparse
import dataclasses
import getpass
import logging
import logging.config
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from baccarat.cli.database import (
    _read,
    _write,
    cannot_run,
    database_url,
    environment_settings,
    require_ours,
    seed_vault,
)
from baccarat.cli.output import print_json, table

if TYPE_CHECKING:
    from baccarat.server.db.uow import UnitOfWork
    from baccarat.server.history import StoredRound


EXCLUDED_HELP = (
    "credit a player who is timed out or self-excluded (refused without it; the audit log "
    "records it)"
)


def _database_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database",
        help="database URL: postgresql://... or sqlite:///FILE "
        "(default: $BACCARAT_DATABASE_URL, else an SQLite file in the data folder)",
    )
    parser.add_argument(
        "--data-dir",
        help="folder of the SQLite database (default: $BACCARAT_DATA_DIR, else ./data)",
    )


def register(subparsers: Any) -> None:
    serve = subparsers.add_parser("serve", help="run the game server (HTTP API and browser files)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", default="8000", help="port (8000)")
    serve.add_argument(
        "--workers", help="worker processes (PostgreSQL only; default 2 there, else 1)"
    )
    serve.add_argument("--tables", help="a TOML file of tables replacing the default set")
    serve.add_argument(
        "--operators",
        help="a TOML file of the operators whose players play on their wallets "
        "(default: $BACCARAT_OPERATORS; docs/operator-api.md)",
    )
    serve.add_argument("--access-log", action="store_true", help="log every request")
    serve.add_argument(
        "--log-format", choices=("text", "json"), default="text",
        help="the log's lines: uvicorn's text (default), or one JSON object a line with the "
        "request's id, route, status, latency and player (docs/operations.md)",
    )  # fmt: skip
    serve.add_argument(
        "--forwarded-allow-ips",
        metavar="ADDRESSES",
        help="comma-separated addresses or networks of the reverse proxies whose "
        "X-Forwarded-For is believed (default: $BACCARAT_FORWARDED_ALLOW_IPS, else none: "
        "a client is the address it connects from); their connections are not capped per "
        "address, the proxy limits its clients (docs/deploy.md)",
    )
    _database_options(serve)
    serve.set_defaults(handler=run_serve)

    admin = subparsers.add_parser("admin", help="operator commands on the server's database")
    _database_options(admin)
    commands = admin.add_subparsers(dest="admin_command", required=True)

    commands.add_parser("migrate", help="apply the schema migrations").set_defaults(
        handler=run_migrate
    )

    accounts = commands.add_parser("accounts", help="create or list player accounts")
    account_commands = accounts.add_subparsers(dest="accounts_command", required=True)
    create = account_commands.add_parser("create", help="register a player")
    create.add_argument("nickname")
    create.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    create.set_defaults(handler=run_accounts_create)
    listing = account_commands.add_parser("list", help="every player with both balances")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(handler=run_accounts_list)

    for name, verb in (("deposit", "credit"), ("withdraw", "pay out")):
        move = commands.add_parser(name, help=f"{verb} real money to a player (operator-confirmed)")
        move.add_argument("nickname")
        move.add_argument("amount", help="in currency units, e.g. 250.00")
        move.add_argument("--memo", help="a note kept with the ledger transaction")
        if name == "deposit":
            move.add_argument("--confirm-excluded", action="store_true",
                              help=EXCLUDED_HELP)  # fmt: skip
        move.set_defaults(handler=run_deposit if name == "deposit" else run_withdraw)

    for kind in ("deposits", "withdrawals"):
        requests = commands.add_parser(kind, help=f"list, approve or reject {kind} requests")
        requests.add_argument("action", nargs="?", choices=("list", "approve", "reject"),
                              default="list")  # fmt: skip
        requests.add_argument("id", nargs="?", help="the request id (approve/reject)")
        requests.add_argument("--note", help="a note kept with the decision")
        requests.add_argument("--all", action="store_true", help="list decided requests too")
        requests.add_argument("--json", action="store_true", help="machine-readable output")
        if kind == "deposits":
            requests.add_argument("--confirm-excluded", action="store_true",
                                  help=EXCLUDED_HELP)  # fmt: skip
        requests.set_defaults(handler=run_requests, request_kind=kind[:-1])

    void = commands.add_parser("void", help="void a round: stakes returned, payouts reversed")
    void.add_argument("round_id", help="a round's id, or coup:N for every bettor of a shared coup")
    void.add_argument("--reason", required=True, help="shown to the player in the history")
    void.set_defaults(handler=run_void)

    replay = commands.add_parser("replay", help="re-derive a round from its seeds and compare")
    replay.add_argument("round_id")
    replay.add_argument("--json", action="store_true", help="machine-readable output")
    replay.add_argument(
        "--rotate-first",
        action="store_true",
        help="if the round's server seed is not revealed yet, rotate the player's seed first "
        "(revealing it, as the player would; the audit log records it) so that the shuffle "
        "can be checked; without it an unrevealed seed stays secret",
    )
    replay.set_defaults(handler=run_replay)

    signing = commands.add_parser(
        "signing-key", help="the Ed25519 key that signs the export and the commitments"
    )
    signing_commands = signing.add_subparsers(dest="signing_command", required=True)
    signing_commands.add_parser(
        "new", help="print a new private key (PEM) for $BACCARAT_SIGNING_KEY, and its public key"
    ).set_defaults(handler=run_signing_new)
    signing_commands.add_parser(
        "show", help="the public keys published at GET /api/fairness (current and retired)"
    ).set_defaults(handler=run_signing_show)
    signing_commands.add_parser(
        "rotate", help="replace the data folder's key; its public key stays listed as retired"
    ).set_defaults(handler=run_signing_rotate)

    seed_key = commands.add_parser("seed-key", help="the AES key of the server seeds at rest")
    seed_key.add_subparsers(dest="seed_key_command", required=True).add_parser(
        "new", help="print a new key (base64 of 32 bytes) for $BACCARAT_SEED_KEY"
    ).set_defaults(handler=run_seed_key_new)

    from baccarat.cli.responsible import run_responsible

    shown = commands.add_parser(
        "responsible", help="a player's limits, usage, exclusion and audit log (read only)"
    )
    shown.add_argument("nickname")
    shown.add_argument("--audit", default="20", help="audit entries to show (0-1000; 20)")
    shown.add_argument("--json", action="store_true", help="machine-readable output")
    shown.set_defaults(handler=run_responsible)

    check = commands.add_parser(
        "check",
        help="verify the ledger; exit 1 if anything is off (2: bad input, 3: could not run)",
    )
    check.add_argument("--json", action="store_true", help="machine-readable output")
    check.set_defaults(handler=run_check)

    from baccarat.cli import office
    from baccarat.cli.operators import register_admin

    register_admin(commands)
    office.register(commands)


# -- serve ---------------------------------------------------------------------------------


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from baccarat.cli import UsageError, inputs
    from baccarat.server import keys, profiles
    from baccarat.server.api.guard import uvicorn_options
    from baccarat.server.db import migrate
    from baccarat.server.kinds import load_tables
    from baccarat.server.observe import directory, logs
    from baccarat.server.settings import parse_forwarded_allow_ips
    from baccarat.server.wallets.operator.config import (
        OperatorConfigError,
        check_operator_markets,
        check_operator_tables,
        load_operators,
    )

    # Every argument is checked before anything is opened or started.
    port = inputs.whole(args.port, "--port", 1, 65535)
    workers = inputs.whole(args.workers, "--workers", 1, 1024) if args.workers else None
    proxies = None
    if args.forwarded_allow_ips is not None:
        try:
            proxies = parse_forwarded_allow_ips(args.forwarded_allow_ips)
        except ValueError as error:
            raise UsageError(f"--forwarded-allow-ips: {error}") from None
        if not proxies:
            raise UsageError("--forwarded-allow-ips needs at least one address")
    log_config = logs.config(args.log_format, args.access_log)
    if log_config is not None:
        logging.config.dictConfig(log_config)  # this process's lines are JSON too
    url = database_url(args)
    workers = workers or (1 if url.one_writer else 2)
    if url.one_writer and workers > 1:
        raise UsageError("SQLite is served by one worker; use --database postgresql://... for more")
    data_dir = Path(args.data_dir or os.environ.get("BACCARAT_DATA_DIR") or "data")
    # Every setting of the environment, with the command's arguments over them, goes whole
    # to every worker.
    settings = environment_settings()
    tables = Path(args.tables).resolve() if args.tables else settings.tables_file
    table_set = load_tables(tables)  # a bad tables file stops us here, with its reason
    operators = args.operators or os.environ.get("BACCARAT_OPERATORS") or None
    operators_file = Path(operators).resolve() if operators else None
    try:
        known = profiles.load(settings.profiles_file, settings.profile)
    except profiles.ProfileError as error:  # (a bad profiles file, or an unknown profile)
        raise UsageError(str(error)) from None
    try:
        operator_set = load_operators(operators_file)
        check_operator_tables(operator_set, table_set)
        check_operator_markets(operator_set, known)
    except OperatorConfigError as error:
        raise UsageError(f"--operators: {error}") from None
    settings = dataclasses.replace(
        settings,
        database=url,
        data_dir=data_dir,
        tables_file=tables,
        operators_file=operators_file,
        limits=dataclasses.replace(
            settings.limits, forwarded_allow_ips=proxies or settings.limits.forwarded_allow_ips
        ),
    )
    with cannot_run(url):
        # Only a database of ours (at this or an older revision), or an empty one.
        if url.exists():
            require_ours(url, migrating=True)
        migrate.upgrade(url, vault=keys.seed_vault(settings))
    json_log = log_config is not None
    if url.file is None and not (settings.signing_key and settings.seed_key):
        _say(json_log, f"baccarat: the signing and seed keys are kept in {data_dir / 'keys'}: "
             "every process on another machine needs the same, set as BACCARAT_SIGNING_KEY "
             "and BACCARAT_SEED_KEY (docs/fairness.md, Keys)", warning=True)  # fmt: skip
    os.environ.update(settings.to_env())
    if settings.metrics_token and (workers > 1 or directory.shared()):
        directory.prepare()  # the workers' metrics are summed through it
    _say(
        json_log,
        f"baccarat: serving on http://{args.host}:{port}/ "
        f"(API docs http://{args.host}:{port}/docs), database {url}, "
        f"{workers} worker{'s' if workers > 1 else ''}",
    )
    uvicorn.run(
        "baccarat.server.app:app_from_env",
        factory=True,
        host=args.host,
        port=port,
        workers=workers,
        # JSON: the access log is the server's own (observe.logs), uvicorn's is off.
        access_log=args.access_log and args.log_format == "text",
        log_config=log_config or LOGGING_CONFIG,
        log_level="info",
        timeout_graceful_shutdown=5,
        **uvicorn_options(settings.limits),
    )
    return 0


def _say(json_log: bool, message: str, warning: bool = False) -> None:
    """A line of ``baccarat serve`` itself: printed, or a JSON line of its log."""
    if json_log:
        logging.getLogger("baccarat.serve").log(logging.WARNING if warning else logging.INFO,
                                                message)  # fmt: skip
    else:
        print(message, file=sys.stderr if warning else sys.stdout, flush=True)


# -- admin ---------------------------------------------------------------------------------


def run_migrate(args: argparse.Namespace) -> int:
    from baccarat.server.db import migrate

    url = database_url(args)
    with cannot_run(url):
        # An empty database (or none: an SQLite file is created) becomes ours; ours at an
        # older revision is brought to this one; another program's is left alone.
        if url.exists():
            require_ours(url, migrating=True)
        revision = migrate.upgrade(url, vault=seed_vault(args))
    print(f"{url}: schema at revision {revision}")
    return 0


def run_accounts_create(args: argparse.Namespace) -> int:
    from baccarat.cli import inputs
    from baccarat.server import accounts
    from baccarat.server.accounts import Passwords
    from baccarat.server.ledger import SystemAccounts

    nickname = inputs.nickname(args.nickname)
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"password for {nickname}: ")
    from baccarat.cli import UsageError
    from baccarat.server.errors import ServiceError

    try:
        accounts.check_password(password, nickname)
    except ServiceError as error:
        raise UsageError(error.message) from None
    hashed = Passwords(environment_settings().passwords).hash(password)
    player = _write(
        args,
        lambda uow: accounts.register(uow, nickname, hashed, SystemAccounts.load(uow)),
    )
    print(f"created player {player.nickname} (id {player.id}): fun 1000.00, real 0.00")
    return 0


def run_accounts_list(args: argparse.Namespace) -> int:
    from baccarat.server import accounts
    from baccarat.server.currencies import format_amount

    players = _read(args, accounts.list_players)
    if args.json:
        print_json(
            [
                {"id": s.player.id, "nickname": s.player.nickname, "currency": s.currency,
                 "fun": s.fun, "real": s.real, "rounds": s.rounds}
                for s in players
            ]
        )  # fmt: skip
        return 0
    # Each balance in its player's currency (minor units of it: a yen has none).
    rows = [
        (s.player.nickname, s.player.id, s.currency, format_amount(s.fun, s.currency),
         format_amount(s.real, s.currency), s.rounds)
        for s in players
    ]  # fmt: skip
    print(table(("nickname", "id", "currency", "fun", "real", "rounds"), rows)
          if rows else "no players")  # fmt: skip
    return 0


def _money(minor: int, currency: str) -> str:
    """An amount of a player's currency: dollars as they always were (1000.00), another
    currency with its sign (¥100,000)."""
    from baccarat.core import format_money
    from baccarat.server.currencies import HOME, format_amount

    return format_money(minor) if currency == HOME else format_amount(minor, currency)


def _move(args: argparse.Namespace, deposit: bool) -> int:
    from baccarat.cli import inputs
    from baccarat.server import accounts, ledger, wallet
    from baccarat.server.ledger import SystemAccounts

    nickname = inputs.nickname(args.nickname)
    memo = inputs.note(args.memo, "a memo")
    # The amount is in the player's currency (its decimals).
    currency = _write(args, lambda uow: ledger.currency_of(uow, accounts.require(uow, nickname).id))
    amount = inputs.amount(args.amount, currency)

    def work(uow: UnitOfWork) -> dict[str, int]:
        from baccarat.server.office import actions

        player = accounts.require(uow, nickname)
        actions.move_money(uow, SystemAccounts.load(uow), player.id, amount, deposit, memo,
                           confirm_excluded=getattr(args, "confirm_excluded", False))  # fmt: skip
        return wallet.balances(uow, player.id)

    balances = _write(args, work)
    verb = "deposited" if deposit else "withdrew"

    print(f"{verb} {_money(amount, currency)} for {nickname}: real balance "
          f"{_money(balances['real'], currency)}")  # fmt: skip
    return 0


def run_deposit(args: argparse.Namespace) -> int:
    return _move(args, deposit=True)


def run_withdraw(args: argparse.Namespace) -> int:
    return _move(args, deposit=False)


def run_requests(args: argparse.Namespace) -> int:
    from baccarat.cli import UsageError, inputs
    from baccarat.server import wallet
    from baccarat.server.history import iso_time
    from baccarat.server.ledger import SystemAccounts

    kind = args.request_kind
    note = inputs.note(args.note, "a note")
    if args.action == "list":
        if args.id is not None:
            raise UsageError("list takes no request id (approve or reject do)")
        status = None if args.all else "pending"
        found = _read(args, lambda uow: wallet.list_requests(uow, kind=kind, status=status))
        if args.json:
            print_json([r.to_json() | {"nickname": r.nickname} for r in found])
            return 0
        rows = [
            (r.id, r.nickname, _money(r.amount, r.currency), r.status, iso_time(r.created_us),
             r.note or "")
            for r in found
        ]  # fmt: skip
        print(table(("id", "nickname", "amount", "status", "time", "note"), rows)
              if rows else f"no {'' if args.all else 'pending '}{kind} requests")  # fmt: skip
        return 0
    if args.id is None:
        raise UsageError(f"{args.action} needs the request id")
    request_id = inputs.request_id(args.id)
    approve = args.action == "approve"

    def work(uow: UnitOfWork) -> dict[str, Any]:
        from baccarat.server.office import actions

        request = wallet.get_request(uow, request_id)
        if request.kind != kind:
            raise UsageError(f"request {request_id} is a {request.kind}, not a {kind}")
        confirmed = getattr(args, "confirm_excluded", False)
        # The back office's decision, audited and an adjustment event, as at the command line.
        decided = actions.decide_request(uow, None, SystemAccounts.load(uow), request_id,
                                         approve, note, confirm_excluded=confirmed)  # fmt: skip
        return decided

    decided = _write(args, work)
    print(f"{kind} request {decided['id']} of {decided['nickname']} for "
          f"{_money(decided['amount'], decided['currency'])}: {decided['status']}")  # fmt: skip
    return 0


def run_void(args: argparse.Namespace) -> int:
    from baccarat.cli import UsageError, inputs
    from baccarat.core import format_money
    from baccarat.server import voids
    from baccarat.server.dealing import FairShoes
    from baccarat.server.ledger import SystemAccounts
    from baccarat.server.play.round import Dealer
    from baccarat.server.wallets.ledger import LedgerWallet

    reason = inputs.note(args.reason, "a void's reason (shown to the player)")
    assert reason is not None  # required
    coup = args.round_id.removeprefix("coup:")
    if coup != args.round_id:
        if not coup.isdigit() or not 0 < len(coup) <= 18:
            raise UsageError(f"coup:N takes a coup's number, not {inputs.shown(coup)}")

        def void_all(uow: UnitOfWork) -> list[StoredRound]:
            dealer = Dealer(FairShoes(), LedgerWallet(SystemAccounts.load(uow)))
            return voids.void_coup(uow, dealer, int(coup), reason)

        voided = _write(args, void_all)
        staked = sum(r.stake for r in voided)
        print(f"coup {coup} void ({reason}): {len(voided)} bettors' rounds, stakes "
              f"{format_money(staked)} returned, payouts {format_money(sum(r.win for r in voided))}"
              " reversed")  # fmt: skip
        return 0
    round_id = inputs.round_id(args.round_id)

    def work(uow: UnitOfWork) -> StoredRound:
        dealer = Dealer(FairShoes(), LedgerWallet(SystemAccounts.load(uow)))
        return voids.void_round(uow, dealer, round_id, reason)

    record = _write(args, work)
    print(f"round {record.id} void ({record.void_reason}): stake {format_money(record.stake)} "
          f"returned, payout {format_money(record.win)} reversed")  # fmt: skip
    return 0


def _key_settings(args: argparse.Namespace) -> Any:
    settings = environment_settings()
    if args.data_dir:
        settings = dataclasses.replace(settings, data_dir=Path(args.data_dir))
    return settings


def run_signing_new(args: argparse.Namespace) -> int:
    from baccarat.fairness.signing import Signer, new_private_key_pem, private_key

    pem = new_private_key_pem()
    signer = Signer(private_key(pem))
    print(pem, end="")
    print(f"# key id {signer.key_id}, public key {signer.public_key}", file=sys.stderr)
    print("# set BACCARAT_SIGNING_KEY to the PEM above (keep it secret) and add the old "
          "public key (baccarat admin signing-key show) to BACCARAT_RETIRED_PUBLIC_KEYS",
          file=sys.stderr)  # fmt: skip
    return 0


def run_seed_key_new(args: argparse.Namespace) -> int:
    from baccarat.server.vault import new_key_text

    print(new_key_text(), end="")
    print("# set BACCARAT_SEED_KEY to it on every server process, out of the database's reach "
          "(docs/fairness.md, Keys); seeds sealed with another key do not open with it",
          file=sys.stderr)  # fmt: skip
    return 0


def run_signing_show(args: argparse.Namespace) -> int:
    from baccarat.server import keys

    print_json({"signing_keys": keys.signer(_key_settings(args)).keys_json()})
    return 0


def run_signing_rotate(args: argparse.Namespace) -> int:
    from baccarat.cli import UsageError
    from baccarat.server import keys

    settings = _key_settings(args)
    if settings.signing_key:
        raise UsageError("the signing key comes from $BACCARAT_SIGNING_KEY: make a new one with "
                         "`baccarat admin signing-key new`, set it there, and list the old "
                         "public key in $BACCARAT_RETIRED_PUBLIC_KEYS")  # fmt: skip
    old, new = keys.rotate_signing_key(settings.data_dir)
    print(f"retired key {old.key_id} (still published: its records verify); "
          f"signing now with key {new.key_id}; restart the server to use it")  # fmt: skip
    return 0


def run_replay(args: argparse.Namespace) -> int:
    from baccarat.cli import inputs
    from baccarat.fairness.verify import show
    from baccarat.server import replay

    round_id = inputs.round_id(args.round_id)
    if args.rotate_first and _write(args, lambda uow: replay.rotate_for_replay(uow, round_id)):
        print(f"round {round_id}: the player's server seed was rotated to reveal it "
              "(recorded in the player's audit log)", file=sys.stderr)  # fmt: skip
    result = _read(args, lambda uow: replay.replay_round(uow, round_id))
    if args.json:
        print_json(result.to_json())
        return 0 if result.ok else 1
    record, fair = result.record, result.record.fairness
    print(f"round {record.id}: rules {record.rules_name}, nonce {fair.nonce}, "
          f"cut {fair.cut}, position {fair.position}")  # fmt: skip
    line = record.to_json()
    for key in ("player", "banker"):
        print(f"  {key:<10} {show(line[key]['cards'])}")
    for key in ("winner", "bets"):
        print(f"  {key:<10} {show(line[key])}")
    for mismatch in result.mismatches:
        print(f"  {mismatch}: DIFFERS")
    if not result.revealed:
        print("  the server seed is not revealed yet: it stays secret, so the shuffle is checked "
              "once the player rotates; the bets are re-settled on the recorded cards")  # fmt: skip
    if not result.ok:
        print("MISMATCH")
    else:
        print("the round matches its seeds" if result.revealed else
              "the round's settlement and money check out (shuffle not yet checkable)")  # fmt: skip
    return 0 if result.ok else 1


def run_check(args: argparse.Namespace) -> int:
    from baccarat.core import format_money
    from baccarat.server import check as audit

    report = _read(args, audit.check)
    if args.json:
        print_json(report.to_json())
        return 0 if report.ok else 1
    counts = ", ".join(f"{n} {name.replace('_', ' ')}" for name, n in report.counts.items())
    print(f"checked {counts}")
    for mode, kinds in report.totals.items():
        parts = ", ".join(f"{kind} {format_money(total)}" for kind, total in kinds.items())
        print(f"  {mode}: {parts} (sum {format_money(sum(kinds.values()))})")
    if report.ok:
        print("ledger OK: every transaction balances, every balance equals its entries, "
              "every round has its money")  # fmt: skip
        return 0
    print(f"LEDGER PROBLEMS ({len(report.problems)}):")
    for problem in report.problems:
        print(f"  - {problem}")
    return 1
