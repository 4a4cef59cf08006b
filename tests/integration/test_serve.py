"""serve.py and Settings: env + CLI, --help, the default-secret refusal, a real demo server."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from http.cookiejar import CookieJar

import pytest

from backend.app import create_app
from backend.config import DEFAULT_SECRET_KEY, InsecureSettingsError, Settings, env_var_name
from support.servers import REPO, ServeProcess, clean_env

SERVE = REPO / "serve.py"


def test_every_setting_is_described():
    for name, field in Settings.model_fields.items():
        assert field.description and len(field.description) > 10, name


def test_help_lists_every_setting_with_its_env_var():
    result = subprocess.run(
        [sys.executable, str(SERVE), "--help"],
        capture_output=True,
        text=True,
        check=True,
        env=clean_env(),
        cwd=REPO,
    )
    for name, field in Settings.model_fields.items():
        assert env_var_name(name) in result.stdout, name
        assert field.description.split(".")[0] in " ".join(result.stdout.split()), name
    for option in ("--host", "--port", "--data-dir", "--demo", "--database-url"):
        assert option in result.stdout


def test_env_and_cli_precedence(monkeypatch, tmp_path):
    from backend import cli as serve

    monkeypatch.setenv("ANA_PORT", "9001")
    monkeypatch.setenv("ANA_HOST", "0.0.0.0")
    settings = serve.settings_from_args(["--port", "9002", "--data-dir", str(tmp_path)])
    assert (settings.port, settings.host, settings.data_dir) == (9002, "0.0.0.0", tmp_path)
    assert settings.demo is False
    assert serve.settings_from_args(["--demo"]).demo is True
    assert serve.settings_from_args(["serve", "--demo", "--port", "9003"]).port == 9003


def test_default_database_is_sqlite_in_data_dir(tmp_path):
    settings = Settings(data_dir=tmp_path / "d")
    expected = f"sqlite:///{(tmp_path / 'd' / 'ambient.db').as_posix()}"
    assert settings.resolved_database_url() == expected
    assert (
        Settings(database_url="postgresql+psycopg://u@h/db")
        .resolved_database_url()
        .startswith("postgresql+psycopg://")
    )


def test_create_app_refuses_the_default_secret_outside_demo(tmp_path, fake_web_dir):
    settings = Settings(data_dir=tmp_path, web_dir=fake_web_dir, secret_key=DEFAULT_SECRET_KEY)
    with pytest.raises(InsecureSettingsError, match="ANA_SECRET_KEY"):
        create_app(settings)
    assert not (tmp_path / "ambient.db").exists()  # refused before touching the database


def test_secret_is_not_in_settings_repr():
    settings = Settings(secret_key="s3cret-value", llm_api_key="s3cret-value")
    assert "s3cret-value" not in repr(settings)


def test_serve_refuses_the_default_secret(tmp_path):
    result = subprocess.run(
        [sys.executable, str(SERVE), "--data-dir", str(tmp_path), "--port", "0"],
        check=False,
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 2
    assert "secret key is the development default" in result.stderr
    assert "ANA_SECRET_KEY" in result.stderr
    assert not (tmp_path / "ambient.db").exists()


def test_demo_server_starts_seeded_and_serves_the_api(tmp_path, fake_web_dir, db_url):
    """A real `serve.py --demo` process on a free port (SQLite file, or --database-url)."""
    args = ["--demo", "--data-dir", str(tmp_path / "demo")]
    if db_url.startswith("postgresql"):
        args += ["--database-url", db_url]
    server = ServeProcess(
        *args, log_path=tmp_path / "server.log", env=clean_env(ANA_WEB_DIR=str(fake_web_dir))
    )
    base, port = server.url, server.port
    try:
        with urllib.request.urlopen(f"{base}/api/health", timeout=10) as response:
            assert json.load(response) == {"status": "ok"}
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        request = urllib.request.Request(
            f"{base}/api/session",
            data=json.dumps({"username": "alice", "password": "alice"}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with opener.open(request, timeout=10) as response:
            assert json.load(response) == {"username": "alice", "admin": True}
        with opener.open(f"{base}/api/workspaces/personal/documents", timeout=10) as response:
            paths = {d["path"] for d in json.load(response)}
        assert {"welcome.md", "todo.md", "日記/今日のメモ.md"} <= paths
    finally:
        server.stop()
    output = server.log()
    assert "alice / alice" in output and f":{port}/" in output
    if db_url.startswith("sqlite"):
        assert (tmp_path / "demo" / "ambient.db").exists()
    # Every log line the server wrote (after the hint) is JSON.
    lines = [line for line in output.splitlines() if line.startswith("{")]
    assert lines and all(json.loads(line)["level"] for line in lines)


def test_bad_settings_are_refused_with_a_message(tmp_path):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="log_level"):
        Settings(log_level="loud")
    assert Settings(log_level="debug").log_level == "DEBUG"
    result = subprocess.run(
        [sys.executable, str(SERVE), "--demo", "--data-dir", str(tmp_path), "--port", "70000"],
        check=False,
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 2 and "Invalid settings" in result.stderr
