"""First run (SPEC §17): the setup code in the start-up log, GET/POST /api/setup, on both
databases; one administrator at most, even when two setups race."""

from __future__ import annotations

import logging
import threading

import pytest
from conftest import TEST_SECRET, open_db, seed_world
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from backend.models import User
from backend.services import setup as setup_service

FIRST = {"username": "root.admin", "password": "first-admin-password"}


class Captured:
    """Every record of the `ambient` logger tree during the test."""

    def __init__(self) -> None:
        self.records: list[logging.LogRecord] = []
        self.handler = logging.Handler()
        self.handler.emit = self.records.append  # type: ignore[method-assign]

    def named(self, name: str) -> list[logging.LogRecord]:
        return [r for r in self.records if r.name == name]

    def text(self) -> str:
        return "\n".join(r.getMessage() + " " + str(getattr(r, "fields", "")) for r in self.records)


@pytest.fixture
def logs():
    captured = Captured()
    logger = logging.getLogger("ambient")
    logger.addHandler(captured.handler)
    yield captured
    logger.removeHandler(captured.handler)


def the_code(app) -> str:
    with open_db(app) as db:
        return setup_service.code_for(TEST_SECRET, setup_service.ensure_salt(db))


def test_start_up_logs_the_code_once_while_no_account_exists(app_factory, logs):
    app = app_factory()
    with TestClient(app) as client:
        assert client.get("/api/setup").json() == {"needed": True}
    [line] = logs.named("ambient.setup")
    code = the_code(app)
    assert code in line.getMessage() and "first administrator" in line.getMessage()
    assert len(code) == 14 and code.count("-") == 2
    # A second process on the same database shows the same code.
    other = app_factory()
    with TestClient(other):
        pass
    assert [r.getMessage() for r in logs.named("ambient.setup")] == [line.getMessage()] * 2
    # Someone with the database but another secret key derives another code.
    with open_db(app) as db:
        salt = setup_service.ensure_salt(db)
    assert setup_service.code_for("another-secret-key-0123456789", salt) != code


def test_no_code_is_logged_once_an_account_exists_or_in_demo(app_factory, logs):
    app = app_factory()
    seed_world(app)
    with TestClient(app) as client:
        assert client.get("/api/setup").json() == {"needed": False}
    demo = app_factory(demo=True, data_dir=app.state.settings.data_dir / "demo")
    with TestClient(demo):
        pass
    assert logs.named("ambient.setup") == []


def test_setup_creates_the_first_administrator_and_signs_in(app_factory, logs):
    app = app_factory()
    client = TestClient(app)
    code = the_code(app)
    r = client.post("/api/setup", json={**FIRST, "code": code.lower().replace("-", " ")})
    assert r.status_code == 201, r.text
    assert r.json() == {"username": "root.admin", "admin": True}
    assert client.get("/api/session").json() == {"username": "root.admin", "admin": True}
    assert client.get("/api/admin/users").status_code == 200
    assert client.get("/api/setup").json() == {"needed": False}
    r = TestClient(app).post("/api/setup", json={**FIRST, "username": "second", "code": code})
    assert r.status_code == 404
    with open_db(app) as db:
        assert db.scalar(select(func.count()).select_from(User)) == 1
    [done] = [r.fields for r in logs.named("ambient.audit")]
    assert (done["action"], done["actor"]) == ("setup done", "root.admin")
    assert code not in logs.text() and FIRST["password"] not in logs.text()


def test_wrong_code_is_403_and_throttled(app_factory):
    app = app_factory()
    client = TestClient(app)
    for _ in range(5):
        r = client.post("/api/setup", json={**FIRST, "code": "AAAA-AAAA-AAAA"})
        assert r.status_code == 403 and "setup code is not correct" in r.json()["detail"]
    r = client.post("/api/setup", json={**FIRST, "code": the_code(app)})
    assert r.status_code == 429 and r.headers["Retry-After"]
    assert client.get("/api/setup").json() == {"needed": True}


@pytest.mark.parametrize(
    ("username", "password"), [("Root", "first-admin-password"), ("root", "short")]
)
def test_setup_follows_the_account_rules(app_factory, username, password):
    app = app_factory()
    body = {"username": username, "password": password, "code": the_code(app)}
    assert TestClient(app).post("/api/setup", json=body).status_code == 422
    assert TestClient(app).get("/api/setup").json() == {"needed": True}


def test_setup_is_404_once_an_account_exists(app):
    r = TestClient(app).post("/api/setup", json={**FIRST, "code": the_code(app)})
    assert r.status_code == 404


def test_two_setups_at_once_make_one_administrator(app_factory):
    apps = [app_factory(), app_factory()]  # two processes on one database
    code = the_code(apps[0])
    statuses: list[int] = []
    barrier = threading.Barrier(2)

    def attempt(app, name):
        client = TestClient(app)
        barrier.wait(timeout=30)
        r = client.post("/api/setup", json={**FIRST, "username": name, "code": code})
        statuses.append(r.status_code)

    threads = [
        threading.Thread(target=attempt, args=(app, f"admin{i}")) for i, app in enumerate(apps)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(statuses) == [201, 404]
    with open_db(apps[0]) as db:
        assert db.scalar(select(func.count()).select_from(User)) == 1


def test_the_code_is_logged_even_when_the_log_level_hides_warnings(app_factory, logs):
    app = app_factory(log_level="ERROR")
    with TestClient(app):
        pass
    [line] = logs.named("ambient.setup")
    assert line.levelno >= logging.ERROR and the_code(app) in line.getMessage()
