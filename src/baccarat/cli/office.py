"""The back office's commands: ``baccarat admin staff create|list|disable|enable|role|
reset-password|reset-second-factor`` (staff accounts with a password and a TOTP second
factor) and ``baccarat admin events`` (the significant events,
filtered)."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING

from baccarat.cli.output import print_json, table

if TYPE_CHECKING:
    from baccarat.server.db.uow import UnitOfWork
    from baccarat.server.office.staff import Enrolment

ROLES = ("viewer", "support", "finance", "admin")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    staff = commands.add_parser("staff", help="create or list the back office's staff")
    staff_commands = staff.add_subparsers(dest="staff_command", required=True)
    create = staff_commands.add_parser("create", help="a staff account (prints its TOTP secret)")
    create.add_argument("name")
    create.add_argument("--role", required=True, choices=ROLES)
    create.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    create.add_argument("--json", action="store_true", help="machine-readable output")
    create.set_defaults(handler=run_staff_create)
    listing = staff_commands.add_parser("list", help="every staff account")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(handler=run_staff_list)
    changes = {
        "disable": "disable an account (its sessions end at once)",
        "enable": "enable a disabled account again",
        "role": "give an account another role",
        "reset-password": "set a new password (the account's sessions end)",
        "reset-second-factor": "a new TOTP secret and recovery codes (prints them once)",
    }
    for command, text in changes.items():
        change = staff_commands.add_parser(command, help=text)
        change.add_argument("name")
        if command == "role":
            change.add_argument("role", choices=ROLES)
        change.add_argument("--reason", required=True, help="why (audited; 1-200 characters)")
        if command == "reset-password":
            change.add_argument(
                "--password-stdin",
                action="store_true",
                help="read the password from standard input",
            )
        change.add_argument("--json", action="store_true", help="machine-readable output")
        change.set_defaults(handler=run_staff_change, change=command)

    rebuild = commands.add_parser(
        "reports-rebuild",
        help="recompute the reports' daily aggregates from every round (once, after upgrading)",
    )
    rebuild.set_defaults(handler=run_reports_rebuild)

    verify = commands.add_parser(
        "verify-install",
        help="the installed files against the release's SHA-256 manifest (exit 1: changed)",
    )
    verify.add_argument("--manifest", help="a manifest file (default: the package's own)")
    verify.add_argument("--json", action="store_true", help="machine-readable output")
    verify.set_defaults(handler=run_verify_install)
    manifest = commands.add_parser(
        "manifest", help="write the package's SHA-256 manifest (a release step)"
    )
    manifest.set_defaults(handler=run_manifest)

    from baccarat.server.significant import KINDS

    shown = commands.add_parser("events", help="the significant events, newest first")
    shown.add_argument("--kind", choices=KINDS)
    shown.add_argument("--since", help="from this day (YYYY-MM-DD, UTC)")
    shown.add_argument("--until", help="to this day (YYYY-MM-DD, UTC), included")
    shown.add_argument("--actor", help='who caused them ("staff:ID", "player:ID", "system")')
    shown.add_argument("--subject", help='what they are about ("round:ID", "table:ID")')
    shown.add_argument("--limit", default="100", help="at most this many (1-1000; 100)")
    shown.add_argument("--json", action="store_true", help="machine-readable output")
    shown.set_defaults(handler=run_events)


def _password(args: argparse.Namespace, name: str) -> str:
    """The password given (prompted, or a line of standard input), checked and hashed."""
    from baccarat.cli import UsageError
    from baccarat.cli.database import environment_settings
    from baccarat.server.accounts import Passwords, check_password
    from baccarat.server.errors import ServiceError

    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"password for {name}: ")
    try:
        check_password(password, name)
    except ServiceError as error:
        raise UsageError(error.message) from None
    return Passwords(environment_settings().passwords).hash(password)


def run_staff_create(args: argparse.Namespace) -> int:
    from baccarat.cli import UsageError
    from baccarat.cli.database import _write
    from baccarat.server import significant
    from baccarat.server.errors import ServiceError
    from baccarat.server.office import staff

    try:
        name = staff.check_name(args.name)
    except ServiceError as error:
        raise UsageError(error.message) from None
    hashed = _password(args, name)

    def work(uow: UnitOfWork) -> staff.Enrolment:
        enrolled = staff.create(uow, name, args.role, hashed)
        staff.audit(uow, None, "staff_created", enrolled.staff.actor, None,
                    role=args.role, by="command line")  # fmt: skip
        significant.record(uow, "staff_changed", "system", enrolled.staff.actor, change="created",
                      role=args.role, by="command line")  # fmt: skip
        return enrolled

    enrolled = _write(args, work)
    if not args.json:
        print(f"created staff {name} (id {enrolled.staff.id}), role {args.role}")
    return _print_enrolment(args, enrolled)


def _print_enrolment(args: argparse.Namespace, enrolled: Enrolment) -> int:
    if args.json:
        print_json(enrolled.to_json())
        return 0
    print(f"TOTP secret (add it to an authenticator app): {enrolled.totp_secret}")
    print(f"  {enrolled.totp_uri}")
    print("recovery codes (each works once; keep them safe, they are not shown again):")
    for code in enrolled.recovery_codes:
        print(f"  {code}")
    return 0


def run_staff_change(args: argparse.Namespace) -> int:
    """disable, enable, role, reset-password, reset-second-factor: audited as done at the
    command line, each a significant event."""
    from baccarat.cli.database import _write
    from baccarat.server.office import staff

    name, reason = args.name, args.reason
    if args.change == "reset-second-factor":
        enrolled = _write(args, lambda uow: staff.reset_second_factor(uow, None, name, reason))
        if not args.json:
            print(f"new second factor for {enrolled.staff.name}; its sessions ended")
        return _print_enrolment(args, enrolled)
    if args.change == "reset-password":
        hashed = _password(args, name)
        done = _write(args, lambda uow: staff.reset_password(uow, None, name, hashed, reason))
    elif args.change == "role":
        done = _write(args, lambda uow: staff.set_role(uow, None, name, args.role, reason))
    else:
        disabled = args.change == "disable"
        done = _write(args, lambda uow: staff.set_disabled(uow, None, name, disabled, reason))
    if args.json:
        print_json(done)
        return 0
    what = {"disable": "disabled (its sessions ended)", "enable": "enabled",
            "role": f"now a {done['role']}",
            "reset-password": "has a new password (its sessions ended)"}[args.change]  # fmt: skip
    print(f"staff {done['name']} (id {done['id']}) {what}")
    return 0


def run_staff_list(args: argparse.Namespace) -> int:
    from baccarat.cli.database import _read
    from baccarat.server.office import staff

    found = _read(args, staff.listed)
    if args.json:
        print_json(found)
        return 0
    rows = [(s["name"], s["id"], s["role"], s["created"], "yes" if s["disabled"] else "")
            for s in found]  # fmt: skip
    print(table(("name", "id", "role", "created", "disabled"), rows) if rows else "no staff")
    return 0


def _day(text: str | None, what: str, end: bool = False) -> int | None:
    from datetime import UTC, datetime, timedelta

    from baccarat.cli import UsageError
    from baccarat.cli.inputs import shown

    if text is None:
        return None
    try:
        day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        raise UsageError(f"{what} is a day YYYY-MM-DD, not {shown(text)}") from None
    return int((day + timedelta(days=1 if end else 0)).timestamp()) * 1_000_000


def run_events(args: argparse.Namespace) -> int:
    import json

    from baccarat.cli import inputs
    from baccarat.cli.database import _read
    from baccarat.server import significant

    limit = inputs.whole(args.limit, "--limit", 1, significant.MAX_LISTED)
    since, until = _day(args.since, "--since"), _day(args.until, "--until", end=True)
    actor = inputs.note(args.actor, "--actor")
    subject = inputs.note(args.subject, "--subject")
    found = _read(args, lambda uow: significant.listed(uow, kind=args.kind, since_us=since,
                                                 until_us=until, actor=actor,
                                                 subject=subject, limit=limit))  # fmt: skip
    if args.json:
        print_json([event.to_json() for event in found])
        return 0
    rows = [
        (e.to_json()["time"], e.id, e.kind, e.actor, e.subject,
         json.dumps(e.details, ensure_ascii=True, separators=(",", ":"))[:80])
        for e in found
    ]  # fmt: skip
    print(table(("time", "id", "kind", "actor", "subject", "details"), rows)
          if rows else "no significant events")  # fmt: skip
    return 0


def run_reports_rebuild(args: argparse.Namespace) -> int:
    from baccarat.cli.database import _write
    from baccarat.server import daily

    count = _write(args, daily.rebuild)
    print(f"daily aggregates rebuilt from {count} rounds")
    return 0


def run_verify_install(args: argparse.Namespace) -> int:
    from pathlib import Path

    from baccarat.server import software

    result = software.verify(manifest=Path(args.manifest) if args.manifest else None)
    if args.json:
        print_json(result.to_json())
        return 0 if result.ok else 1
    if result.status == "no_manifest":
        print(f"software {result.software_id}: no manifest ({software.MANIFEST}) to verify "
              "against: a development tree, or a release built without `baccarat admin "
              "manifest`")  # fmt: skip
        return 1
    for what, names in (("changed", result.changed), ("missing", result.missing),
                        ("added", result.added)):  # fmt: skip
        for name in names:
            print(f"{what}: {name}")
    print(
        f"software {result.software_id}: "
        + ("every file matches the manifest" if result.ok else "DIFFERS from the manifest")
    )
    return 0 if result.ok else 1


def run_manifest(args: argparse.Namespace) -> int:
    from baccarat.server import software

    path = software.write_manifest()
    print(f"wrote {path} ({len(path.read_text().splitlines())} files)")
    return 0
