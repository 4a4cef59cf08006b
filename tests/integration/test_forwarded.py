"""Who the client is: X-Forwarded-For is believed only from proxies the operator names
(ANA_TRUSTED_PROXIES), against real `serve.py` processes on both databases."""

from __future__ import annotations

from pathlib import Path

from support.servers import ServeProcess, clean_env

SECRET = "forwarded-test-secret-0123456789abcdef"
ATTEMPTS_PER_ADDRESS = 20  # backend.limits.throttle.SIGN_IN_PER_ADDRESS


def _server(db_url: str, tmp_path: Path, web_dir: Path, **settings: str) -> ServeProcess:
    args = ["--demo", "--data-dir", str(tmp_path / "data")]
    if db_url.startswith("postgresql"):
        args += ["--database-url", db_url]
    env = clean_env(
        ANA_SECRET_KEY=SECRET, ANA_WEB_DIR=str(web_dir), ANA_LOG_LEVEL="WARNING", **settings
    )
    return ServeProcess(*args, log_path=tmp_path / "server.log", env=env)


def _wrong_sign_ins(server: ServeProcess, count: int) -> list[int]:
    """Wrong passwords for ever new usernames, each claiming another forwarded address."""
    with server.client() as client:
        return [
            client.post(
                "/api/session",
                json={"username": f"guess{i}", "password": "wrong"},
                headers={"X-Forwarded-For": f"203.0.113.{i}"},
            ).status_code
            for i in range(count)
        ]


def test_a_forwarded_address_from_an_unnamed_peer_changes_nothing(db_url, tmp_path, fake_web_dir):
    server = _server(db_url, tmp_path, fake_web_dir)
    try:
        statuses = _wrong_sign_ins(server, ATTEMPTS_PER_ADDRESS + 1)
    finally:
        server.stop()
    # All attempts count against the one real peer address: the last is refused.
    assert statuses == [401] * ATTEMPTS_PER_ADDRESS + [429], server.log()


def test_a_named_proxy_sets_the_client_address(db_url, tmp_path, fake_web_dir):
    server = _server(db_url, tmp_path, fake_web_dir, ANA_TRUSTED_PROXIES="127.0.0.1")
    try:
        statuses = _wrong_sign_ins(server, ATTEMPTS_PER_ADDRESS + 1)
    finally:
        server.stop()
    # Each attempt came from its own (forwarded) address: none reaches a per-address limit.
    assert statuses == [401] * (ATTEMPTS_PER_ADDRESS + 1), server.log()
