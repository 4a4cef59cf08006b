"""`python serve.py users …` / `workspaces …` (SPEC §17) as real subprocesses on a fresh data
dir (and on PostgreSQL), then a real server where the accounts they made sign in."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy.orm import Session

from backend.db import build_engine
from backend.services.users import Passwords, authenticate
from support.servers import REPO, ServeProcess, clean_env

SECRET = "cli-test-secret-0123456789-abcdef"
PASSWORD = "cli-user-password"


def cli(*args: str, stdin: str | None = None, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "serve.py", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env or clean_env(),
        timeout=120,
        check=False,
    )


def plain_error(result) -> str:
    """The one plain line a failed command writes on stderr."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert not lines[0].startswith("{")
    return lines[0]


def audit_lines(result) -> list[dict]:
    records = [json.loads(x) for x in result.stderr.splitlines() if x.startswith("{")]
    return [r for r in records if r["logger"] == "ambient.audit"]


def test_users_and_workspaces_on_a_fresh_data_dir(tmp_path: Path):
    where = ("--data-dir", str(tmp_path / "data"))
    r = cli("users", "add", "me", "--admin", "--password-stdin", *where, stdin=PASSWORD + "\n")
    assert r.returncode == 0, r.stderr
    assert "me" in r.stdout
    [line] = audit_lines(r)
    assert (line["action"], line["target"], line["admin"]) == ("user created", "me", True)
    assert PASSWORD not in r.stdout + r.stderr
    assert (tmp_path / "data" / "ambient.db").exists()

    r = cli("users", "add", "bo", "--password-stdin", *where, stdin=PASSWORD + "\n")
    assert r.returncode == 0, r.stderr
    r = cli("users", "list", *where)
    assert r.returncode == 0
    assert r.stdout.splitlines() == ["bo\t-", "me\tadmin"]

    r = cli("users", "add", "me", "--password-stdin", *where, stdin=PASSWORD + "\n")
    assert r.returncode == 1 and plain_error(r) == "That username is taken."
    r = cli("users", "add", "short", "--password-stdin", *where, stdin="tiny\n")
    assert r.returncode == 1
    assert plain_error(r) == "A password has at least 10 characters and is not the username."
    r = cli("users", "add", "Bad Name", "--password-stdin", *where, stdin=PASSWORD + "\n")
    assert r.returncode == 1 and "a-z 0-9" in plain_error(r)

    r = cli("users", "disable", "bo", *where)
    assert r.returncode == 0, r.stderr
    assert cli("users", "list", *where).stdout.splitlines() == ["bo\tdisabled", "me\tadmin"]
    assert cli("users", "enable", "bo", *where).returncode == 0
    r = cli("users", "disable", "me", *where)  # the last enabled administrator
    assert r.returncode == 1 and plain_error(r) == "This would leave no enabled administrator."
    r = cli("users", "disable", "nobody", *where)
    assert r.returncode == 1 and plain_error(r) == "There is no user with that name."
    r = cli("users", "passwd", "nobody", "--password-stdin", *where, stdin=PASSWORD + "\n")
    assert r.returncode == 1 and plain_error(r) == "There is no user with that name."
    r = cli("users", "passwd", "bo", "--password-stdin", *where, stdin="tiny\n")
    assert r.returncode == 1 and "at least 10" in plain_error(r)

    r = cli("workspaces", "add", "Café Team", "--owner", "me", *where)
    assert r.returncode == 0, r.stderr
    assert "cafe-team" in r.stdout
    r = cli("workspaces", "add", "Café Team", "--owner", "bo", *where)
    assert r.returncode == 0 and "cafe-team-2" in r.stdout
    r = cli("workspaces", "add", "Other", "--owner", "nobody", *where)
    assert r.returncode == 1 and plain_error(r) == "There is no user with that name."
    r = cli("workspaces", "list", *where)
    assert r.stdout.splitlines() == ["cafe-team\tCafé Team\tme", "cafe-team-2\tCafé Team\tbo"]


def test_a_wrong_command_is_refused_with_a_non_zero_exit(tmp_path: Path):
    for args in (
        ("users", "frobnicate"),
        ("users", "add"),
        ("workspaces", "add", "X"),  # no --owner
        ("users",),
    ):
        r = cli(*args, "--data-dir", str(tmp_path))
        assert r.returncode == 2, args
        assert "usage:" in r.stderr
    assert not (tmp_path / "ambient.db").exists()  # nothing was touched


def test_help_names_the_people_commands():
    r = cli("--help")
    assert r.returncode == 0 and "users --help" in r.stdout
    r = cli("users", "--help")
    assert r.returncode == 0
    for command in ("add", "list", "passwd", "disable", "enable"):
        assert command in r.stdout


def test_a_user_made_by_the_cli_signs_in_to_a_real_server(tmp_path: Path, fake_web_dir: Path):
    data = tmp_path / "data"
    env = clean_env(ANA_SECRET_KEY=SECRET, ANA_WEB_DIR=str(fake_web_dir), ANA_DATA_DIR=str(data))
    r = cli("users", "add", "ann", "--password-stdin", env=env, stdin=PASSWORD + "\n")
    assert r.returncode == 0, r.stderr
    r = cli("workspaces", "add", "Ann's notes", "--owner", "ann", env=env)
    assert r.returncode == 0, r.stderr
    server = ServeProcess(log_path=tmp_path / "server.log", env=env)
    try:
        with server.client() as ann:
            r = ann.post("/api/session", json={"username": "ann", "password": PASSWORD})
            assert r.status_code == 200, r.text
            assert ann.get("/api/workspaces").json() == [
                {"id": "ann-s-notes", "name": "Ann's notes", "role": "owner"}
            ]
            # A new password from the command line ends the running server's sign-in.
            new = PASSWORD + "-2"
            r = cli("users", "passwd", "ann", "--password-stdin", env=env, stdin=new + "\n")
            assert r.returncode == 0, r.stderr
            assert ann.get("/api/session").status_code == 401
            r = ann.post("/api/session", json={"username": "ann", "password": new})
            assert r.status_code == 200
            # Disabling from the command line: the next request is refused.
            assert cli("users", "disable", "ann", env=env).returncode == 0
            assert ann.get("/api/session").status_code == 401
            r = ann.post("/api/session", json={"username": "ann", "password": new})
            assert r.status_code == 403
            assert cli("users", "enable", "ann", env=env).returncode == 0
            r = ann.post("/api/session", json={"username": "ann", "password": new})
            assert r.status_code == 200
    finally:
        server.stop()
    assert "setup code" not in server.log()  # an account existed before it started


def test_a_fresh_server_logs_a_setup_code_that_creates_the_first_admin(
    tmp_path: Path, fake_web_dir: Path
):
    env = clean_env(ANA_SECRET_KEY=SECRET, ANA_WEB_DIR=str(fake_web_dir))
    server = ServeProcess(
        "--data-dir", str(tmp_path / "data"), log_path=tmp_path / "s.log", env=env
    )
    try:
        lines = [json.loads(x) for x in server.log().splitlines() if x.startswith("{")]
        [setup_line] = [x for x in lines if x["logger"] == "ambient.setup"]
        code = re.search(r"[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}", setup_line["event"]).group(0)
        with server.client() as me:
            assert me.get("/api/setup").json() == {"needed": True}
            body = {"username": "me", "password": PASSWORD, "code": code}
            r = me.post("/api/setup", json=body)
            assert r.status_code == 201, r.text
            assert me.get("/api/session").json() == {"username": "me", "admin": True}
            assert httpx.post(f"{server.url}/api/setup", json=body).status_code == 404
    finally:
        server.stop()
    assert server.log().count(code) == 1  # the one start-up line, nowhere else
    r = cli("users", "list", "--data-dir", str(tmp_path / "data"), env=env)
    assert r.stdout.splitlines() == ["me\tadmin"]


def test_the_commands_on_postgresql(pg_url: str, tmp_path: Path):
    env = clean_env(ANA_DATABASE_URL=pg_url)
    r = cli("users", "add", "pg-admin", "--admin", "--password-stdin", env=env, stdin=PASSWORD)
    assert r.returncode == 0, r.stderr
    r = cli("users", "add", "pg-user", "--password-stdin", env=env, stdin=PASSWORD + "\n")
    assert r.returncode == 0, r.stderr
    r = cli("workspaces", "add", "Shared", "--owner", "pg-admin", "--database-url", pg_url)
    assert r.returncode == 0, r.stderr
    assert cli("users", "disable", "pg-user", env=env).returncode == 0
    assert cli("users", "list", env=env).stdout.splitlines() == [
        "pg-admin\tadmin",
        "pg-user\tdisabled",
    ]
    assert cli("workspaces", "list", env=env).stdout.splitlines() == ["shared\tShared\tpg-admin"]
    r = cli("users", "add", "pg-user", "--password-stdin", env=env, stdin=PASSWORD)
    assert r.returncode == 1 and plain_error(r) == "That username is taken."
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("form", [["serve", "--help"], ["--help"]])
def test_serve_forms_still_parse(form):
    r = cli(*form)
    assert r.returncode == 0 and "--data-dir" in r.stdout


def test_the_password_prompt_asks_twice(tmp_path: Path):
    """Without --password-stdin the password is asked for twice. The command runs here with
    no terminal (a new session), so getpass reads the two answers from stdin."""
    where = ("--data-dir", str(tmp_path / "data"))

    def prompted(*args: str, answers: str):
        return subprocess.run(
            [sys.executable, "serve.py", *args, *where],
            input=answers,
            capture_output=True,
            text=True,
            cwd=REPO,
            env=clean_env(),
            timeout=120,
            check=False,
            start_new_session=True,
        )

    r = prompted("users", "add", "kim", answers=f"{PASSWORD}\n{PASSWORD}-typo\n")
    assert r.returncode == 1 and "The two passwords differ." in r.stderr
    assert cli("users", "list", *where).stdout == ""
    r = prompted("users", "add", "kim", answers=f"{PASSWORD}\n{PASSWORD}\n")
    assert r.returncode == 0, r.stderr
    assert "Password again" in r.stderr + r.stdout
    r = prompted("users", "passwd", "kim", answers=f"{PASSWORD}-2\n{PASSWORD}-2\n")
    assert r.returncode == 0, r.stderr
    assert cli("users", "list", *where).stdout.splitlines() == ["kim\t-"]
    engine = build_engine(f"sqlite:///{(tmp_path / 'data' / 'ambient.db').as_posix()}")
    try:
        with Session(engine) as db:
            found = authenticate(
                db, username="kim", password=f"{PASSWORD}-2", passwords=Passwords()
            )
            assert found is not None
    finally:
        engine.dispose()
