"""Command-line entry point: `ambient-notes` or `python serve.py [--demo] [--data-dir DIR] ...`,
and the people commands (`users ...`, `workspaces ...`, SPEC §17) on the same settings."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from backend.config import InsecureSettingsError, Settings, env_var_name
from backend.errors import DomainError

CLI_FIELDS = ("host", "port", "data_dir", "database_url", "demo", "log_level")
PEOPLE_COMMANDS = ("users", "workspaces")
TRANSFER_COMMANDS = ("export", "import")  # SPEC §18, docs/import-export.md
KEEP_ALIVE_SECONDS = 5  # an idle keep-alive connection is closed after this (uvicorn's own)


def settings_help() -> str:
    """Every setting with its environment variable, default and help text."""
    lines = ["settings (environment variables; command-line options override them):"]
    for name, field in Settings.model_fields.items():
        default = "(empty)" if field.default is None else field.default
        if name in ("secret_key", "web_dir"):
            default = "(built in)"
        lines.append(f"  {env_var_name(name):28} {field.description} Default: {default}.")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ambient-notes [serve]",
        description="Run the Ambient Note Awareness server (from a checkout: python serve.py). "
        "Accounts and workspaces: ambient-notes users --help, ambient-notes workspaces --help. "
        "Notes in and out: ambient-notes export --help, ambient-notes import --help.",
        epilog=settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fields = Settings.model_fields
    parser.add_argument("--host", help=fields["host"].description)
    parser.add_argument("--port", type=int, help=fields["port"].description)
    parser.add_argument("--data-dir", type=Path, help=fields["data_dir"].description)
    parser.add_argument("--database-url", help=fields["database_url"].description)
    parser.add_argument("--log-level", help=fields["log_level"].description)
    parser.add_argument(
        "--demo", action="store_true", default=None, help=fields["demo"].description
    )
    return parser


def settings_from_args(argv: list[str] | None = None) -> Settings:
    """Settings from the environment, with the given command-line options on top."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:  # `ambient-notes serve --demo` reads like the other forms
        argv = argv[1:]
    args = build_parser().parse_args(argv)
    overrides = {
        name: getattr(args, name) for name in CLI_FIELDS if getattr(args, name) is not None
    }
    return Settings(**overrides)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in PEOPLE_COMMANDS:
        return run_people_command(argv)
    if argv[:1] and argv[0] in TRANSFER_COMMANDS:
        return run_transfer_command(argv)
    try:
        settings = settings_from_args(argv)
        settings.check_secure()
    except InsecureSettingsError as exc:
        print(exc, file=sys.stderr)
        return 2
    except ValidationError as exc:
        print(f"Invalid settings:\n{exc}", file=sys.stderr)
        return 2

    import uvicorn

    from backend.app import create_app
    from backend.limits.bounded_h11 import MAX_HEADER_BYTES, bounded_h11
    from backend.logging import uvicorn_log_config

    app = create_app(settings)
    if settings.demo:
        host = "localhost" if settings.host in ("127.0.0.1", "0.0.0.0", "::") else settings.host
        print(
            f"Demo mode: open http://{host}:{settings.port}/ and sign in as alice / alice "
            f"(or bob / bob). Data: {settings.data_dir}",
            flush=True,
        )
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_config=uvicorn_log_config(settings.log_level),
        access_log=False,  # the app writes its own JSON request log without URLs
        # h11 rather than httptools: h11 refuses a header section over 16 KiB as it arrives
        # (httptools has no limit), and our subclass closes half-sent requests.
        http=bounded_h11(settings.header_timeout_seconds, settings.body_timeout_seconds),
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        # Forwarded headers rewrite the client address only from proxies the operator named;
        # uvicorn's own default would trust any local process.
        proxy_headers=bool(settings.trusted_proxy_list()),
        forwarded_allow_ips=settings.trusted_proxy_list() or None,
    )
    return 0


# --- accounts and workspaces (SPEC §17) ---------------------------------------------------


class CommandError(Exception):
    """A plain one-line message for stderr; the command exits 1."""


def build_people_parser() -> argparse.ArgumentParser:
    fields = Settings.model_fields
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, help=fields["data_dir"].description)
    common.add_argument("--database-url", help=fields["database_url"].description)
    parser = argparse.ArgumentParser(
        prog="ambient-notes",
        description="Manage accounts and workspaces on the database `serve` uses (the same "
        "ANA_* environment variables and --data-dir/--database-url). A change is seen by "
        "running servers on their next request.",
    )
    groups = parser.add_subparsers(dest="group", required=True)

    users = groups.add_parser("users", help="accounts").add_subparsers(
        dest="command", required=True
    )
    add = users.add_parser("add", parents=[common], help="create an account")
    add.add_argument("name")
    add.add_argument("--admin", action="store_true", help="an administrator")
    add.add_argument(
        "--password-stdin", action="store_true", help="read the password as one line of stdin"
    )
    users.add_parser("list", parents=[common], help="list accounts")
    passwd = users.add_parser(
        "passwd", parents=[common], help="set a password (ends every sign-in of the user)"
    )
    passwd.add_argument("name")
    passwd.add_argument("--password-stdin", action="store_true")
    for verb, text in (
        ("disable", "disable an account: its sign-ins, key sessions and tokens end"),
        ("enable", "let a disabled account sign in again"),
    ):
        users.add_parser(verb, parents=[common], help=text).add_argument("name")

    spaces = groups.add_parser("workspaces", help="workspaces").add_subparsers(
        dest="command", required=True
    )
    ws_add = spaces.add_parser("add", parents=[common], help="create a workspace")
    ws_add.add_argument("name", help="its name; the id is a slug of it")
    ws_add.add_argument("--owner", required=True, help="the username who owns it")
    spaces.add_parser("list", parents=[common], help="list workspaces and their owners")
    return parser


def read_password(from_stdin: bool) -> str:
    """One line of stdin, or a prompt asked twice."""
    if from_stdin:
        line = sys.stdin.readline()
        return line.removesuffix("\n")
    import getpass

    first = getpass.getpass("Password: ")
    if getpass.getpass("Password again: ") != first:
        raise CommandError("The two passwords differ.")
    return first


def run_people_command(argv: list[str]) -> int:
    """`users ...` / `workspaces ...`: 0 on success, else 1 (2 for bad usage or settings)
    with one plain line on stderr."""
    return _run_command(build_people_parser().parse_args(argv), _people_command)


def _run_command(
    args: argparse.Namespace, work: Callable[[argparse.Namespace, Settings], None]
) -> int:
    """Settings from the environment and the flags, then `work`: 0 when it succeeds, 2 for
    bad settings, 1 for what it refused (one plain line on stderr, never a traceback)."""
    overrides = {
        name: getattr(args, name)
        for name in ("data_dir", "database_url")
        if getattr(args, name, None) is not None
    }
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        print(f"Invalid settings: {exc.errors()[0]['msg']}", file=sys.stderr)
        return 2
    try:
        work(args, settings)
    except CommandError as exc:
        print(exc, file=sys.stderr)
        return 1
    except DomainError as exc:
        print(exc.message, file=sys.stderr)
        return 1
    except OSError as exc:  # a file named on the command line, or the data folder
        where = exc.filename or getattr(args, "file", None) or "a file"
        print(f"Cannot use {where}: {exc.strerror}.", file=sys.stderr)
        return 1
    return 0


def _people_command(args: argparse.Namespace, settings: Settings) -> None:
    from backend.db import build_engine, build_sessionmaker
    from backend.logging import configure_logging
    from backend.migrations import upgrade_to_head
    from backend.services import accounts
    from backend.services.users import Passwords, password_problem

    configure_logging(settings.log_level)  # audit lines go to stderr as JSON
    if args.group == "users" and args.command in ("add", "passwd"):
        password = read_password(args.password_stdin)  # before any database work
    engine = build_engine(settings.resolved_database_url())
    try:
        upgrade_to_head(engine)
        maker = build_sessionmaker(engine)
        with maker() as db:
            if args.group == "users":
                if args.command == "add":
                    accounts.create_account(
                        db,
                        username=args.name,
                        password=password,
                        passwords=Passwords(),
                        admin=args.admin,
                        actor=CLI_ACTOR,
                    )
                    print(f"Created {'administrator' if args.admin else 'user'} {args.name}.")
                elif args.command == "list":
                    for user in accounts.list_users(db):
                        flags = [
                            f
                            for f, on in (("admin", user.admin), ("disabled", user.disabled))
                            if on
                        ]
                        print("\t".join([user.username, ",".join(flags) or "-"]))
                elif args.command == "passwd":
                    user = accounts.get_user(db, args.name)
                    problem = password_problem(password, username=user.username)
                    if problem:
                        raise CommandError(problem)
                    accounts.set_password(
                        db,
                        user=user,
                        password_hash=Passwords().hash(password),
                        keep_row_id=None,
                        actor=CLI_ACTOR,
                    )
                    print(f"Password set for {args.name}; their sign-ins ended.")
                else:
                    disabled = args.command == "disable"
                    accounts.change_user(db, actor=None, username=args.name, disabled=disabled)
                    print(f"{args.name} is {'disabled' if disabled else 'enabled'}.")
            elif args.command == "add":
                workspace = accounts.create_workspace(db, name=args.name, owner=args.owner)
                print(
                    f"Created workspace {workspace.id} ({workspace.name}), owned by {args.owner}."
                )
            else:
                for workspace, owners in accounts.list_workspaces(db):
                    print("\t".join([workspace.id, workspace.name, ",".join(owners) or "-"]))
    finally:
        engine.dispose()


CLI_ACTOR = "(command line)"


# --- export and import (SPEC §18) ---------------------------------------------------------


def build_transfer_parser() -> argparse.ArgumentParser:
    from backend.services.transfer import ON_CONFLICT

    fields = Settings.model_fields
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", type=Path, help=fields["data_dir"].description)
    common.add_argument("--database-url", help=fields["database_url"].description)
    parser = argparse.ArgumentParser(
        prog="ambient-notes",
        description="Export a workspace's notes as a zip, or import a zip of notes, on the "
        "database `serve` uses (docs/import-export.md).",
    )
    verbs = parser.add_subparsers(dest="group", required=True)
    export = verbs.add_parser("export", parents=[common], help="write a workspace as a zip")
    export.add_argument("workspace", help="the workspace id")
    export.add_argument("file", type=Path, help="the zip to write")
    export.add_argument("--folder", help="only the notes in this folder")
    imp = verbs.add_parser("import", parents=[common], help="import a zip into a workspace")
    imp.add_argument("workspace", help="the workspace id")
    imp.add_argument("file", type=Path, help="the zip to read")
    imp.add_argument(
        "--on-conflict",
        choices=ON_CONFLICT,
        default="skip",
        help="when a note exists at an entry's path (default: skip)",
    )
    imp.add_argument(
        "--as",
        dest="as_user",
        metavar="USER",
        help="the editor or owner the notes are saved for (default: the workspace's first owner)",
    )
    return parser


def run_transfer_command(argv: list[str]) -> int:
    """`export WS FILE` / `import WS FILE`: 0 on success, else 1 (2 for bad usage or settings)
    with one plain line on stderr."""
    return _run_command(build_transfer_parser().parse_args(argv), _transfer_command)


def _transfer_command(args: argparse.Namespace, settings: Settings) -> None:
    from sqlalchemy import select

    from backend.db import build_engine, build_sessionmaker
    from backend.logging import configure_logging
    from backend.migrations import upgrade_to_head
    from backend.models import Membership, User, Workspace
    from backend.services import transfer, workspaces
    from backend.services.documents import follow_commits
    from backend.services.source import Source

    configure_logging(settings.log_level)
    engine = build_engine(settings.resolved_database_url())
    try:
        upgrade_to_head(engine)
        maker = build_sessionmaker(engine)
        follow_commits(maker)
        with maker() as db:
            if db.get(Workspace, args.workspace) is None:
                raise CommandError(f"There is no workspace {args.workspace}.")
            if args.group == "export":
                folder = None
                if args.folder is not None:
                    from ambient.paths import PathError, normalize_folder

                    try:
                        folder = normalize_folder(args.folder)
                    except PathError as exc:
                        raise CommandError(str(exc)) from None
                listing = transfer.export_list(db, workspace_id=args.workspace, folder=folder)
                partial = args.file.with_name(args.file.name + ".part")
                with partial.open("wb") as out:
                    for chunk in transfer.export_chunks(
                        maker, workspace_id=args.workspace, listing=listing
                    ):
                        out.write(chunk)
                partial.replace(args.file)
                print(
                    f"Exported {listing.notes} notes and {listing.attachments} "
                    f"attachments of {args.workspace} to {args.file}."
                )
                return
            if args.as_user is not None:
                user = db.scalar(select(User).where(User.username == args.as_user))
                if user is None:
                    raise CommandError(f"There is no user {args.as_user}.")
                role = workspaces.role_of(db, user_id=user.id, workspace_id=args.workspace)
                if not workspaces.allows(role, workspaces.EDITOR):
                    raise CommandError(
                        f"{args.as_user} is not an editor or owner of {args.workspace}."
                    )
            else:
                user = db.scalar(
                    select(User)
                    .join(Membership, Membership.user_id == User.id)
                    .where(
                        Membership.workspace_id == args.workspace,
                        Membership.role == workspaces.OWNER,
                    )
                    .order_by(User.id)
                    .limit(1)
                )
                if user is None:
                    raise CommandError(f"{args.workspace} has no owner: name a user with --as.")
            user_id, name = user.id, transfer.zip_name(args.file.name)
            db.rollback()
            with args.file.open("rb") as file:
                report = transfer.import_zip(
                    db,
                    workspace_id=args.workspace,
                    file=file,
                    source=Source.imported(user_id, name),
                    on_conflict=args.on_conflict,
                    max_note_bytes=settings.max_note_bytes,
                )
            print(
                f"Imported {len(report.imported)} files into {args.workspace}; "
                f"renamed {len(report.renamed)}, replaced {len(report.replaced)}, "
                f"skipped {len(report.skipped)}, ignored {len(report.ignored)}."
            )
            for label, items in (
                ("skipped", report.skipped),
                ("replaced", report.replaced),
                ("ignored", report.ignored),
            ):
                for item in items:
                    print(f"{label}\t{item}")
            for pair in report.renamed:
                print(f"renamed\t{pair['from']}\t{pair['to']}")
    finally:
        engine.dispose()


if __name__ == "__main__":
    sys.exit(main())
