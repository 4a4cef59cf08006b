"""Sign-in with OpenID Connect (issue 31, docs/oidc.md) against a real provider: the
`oidc-provider` npm package started by the test (tests/integration/oidc_provider.mjs), the app
on a real uvicorn server, and httpx going through the provider's forms as a browser would."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update

from backend.models import User
from tests.conftest import PASSWORDS, open_db, seed_world
from tests.integration.oidc_helpers import AppServer, OidcProvider, start_provider, walk_sign_in

ACCOUNTS = {
    # preferred_username is folded to the account rules: "carol.smith"
    "carol": {
        "email": "carol@example.com",
        "email_verified": True,
        "preferred_username": "Carol.Smith",
    },
    "dave": {"email": "dave@other.org", "email_verified": True},
    "erin": {"email": "erin@example.com", "email_verified": False},
    # A provider account named like the local administrator: it must never become her.
    "alice": {"email": "alice@example.com", "email_verified": True, "preferred_username": "alice"},
}


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OidcProvider]:
    started = start_provider(ACCOUNTS, log_dir=tmp_path_factory.mktemp("oidc"))
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def serve(
    app_factory: Callable[..., FastAPI], provider: OidcProvider
) -> Iterator[Callable[..., tuple[FastAPI, str]]]:
    """`serve(seed=True, **settings)` → (app, its URL): the app pointed at the provider, on
    the port the provider's redirect URI names, with the standard world unless seed=False."""
    servers: list[AppServer] = []

    def start(seed: bool = True, **settings: object) -> tuple[FastAPI, str]:
        assert not servers, "one app per test: the provider knows one redirect URI"
        app = app_factory(**provider.settings(**settings))
        if seed:
            seed_world(app)
        server = AppServer(app, provider.app_port)
        server.start()
        servers.append(server)
        return app, server.url

    yield start
    for server in servers:
        server.stop()


def browser() -> httpx.Client:
    return httpx.Client(timeout=30)


def session_of(client: httpx.Client, url: str) -> httpx.Response:
    return client.get(f"{url}/api/session")


def test_providers_list_is_empty_when_off(app: FastAPI) -> None:
    client = TestClient(app)
    assert client.get("/api/session/providers").json() == {"providers": []}
    response = client.get("/api/oidc/login", follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"] == "/#signin-error=off"


def test_providers_list_names_the_button(serve) -> None:
    _, url = serve(oidc_name="Example SSO")
    with browser() as client:
        answer = client.get(f"{url}/api/session/providers")
    assert answer.status_code == 200
    assert answer.json() == {
        "providers": [{"id": "oidc", "name": "Example SSO", "url": "/api/oidc/login"}]
    }


def test_first_sign_in_creates_the_user_and_the_next_finds_it(serve) -> None:
    _, url = serve()
    with browser() as client:
        first = walk_sign_in(client, url, login="carol")
        assert first.location == "/"
        me = session_of(client, url)
        assert me.status_code == 200
        assert me.json() == {"username": "carol.smith", "admin": False}
        # A new user belongs to no workspace until someone adds them.
        assert client.get(f"{url}/api/workspaces").json() == []
    with browser() as client:  # another browser, a second sign-in: the same user
        assert walk_sign_in(client, url, login="carol").location == "/"
        assert session_of(client, url).json()["username"] == "carol.smith"
    with browser() as client:  # the account has no password anyone could type
        for password in ("", "carol", "any-password"):
            refused = client.post(
                f"{url}/api/session", json={"username": "carol.smith", "password": password}
            )
            assert refused.status_code in (401, 422)
        assert session_of(client, url).status_code == 401


def test_a_provider_account_named_like_a_local_one_gets_its_own_user(serve) -> None:
    _, url = serve()
    with browser() as client:
        assert walk_sign_in(client, url, login="alice").location == "/"
        assert session_of(client, url).json() == {"username": "alice-2", "admin": False}
        assert client.get(f"{url}/api/workspaces").json() == []
        assert client.get(f"{url}/api/workspaces/personal/documents").status_code == 403
    with browser() as client:  # the local alice is untouched
        signed_in = client.post(
            f"{url}/api/session", json={"username": "alice", "password": PASSWORDS["alice"]}
        )
        assert signed_in.json() == {"username": "alice", "admin": True}


def test_allowed_domains_refuse_other_and_unverified_emails(serve) -> None:
    _, url = serve(oidc_allowed_domains="Example.com, example.net")
    with browser() as client:
        assert walk_sign_in(client, url, login="dave").location == "/#signin-error=domain"
        assert session_of(client, url).status_code == 401
    with browser() as client:
        assert walk_sign_in(client, url, login="erin").location == "/#signin-error=domain"
        assert session_of(client, url).status_code == 401
    with browser() as client:
        assert walk_sign_in(client, url, login="carol").location == "/"
        assert session_of(client, url).json()["username"] == "carol.smith"


def _with_state(url: str, state: str) -> str:
    parts = urlsplit(url)
    query = [(k, state if k == "state" else v) for k, v in parse_qsl(parts.query)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def test_a_tampered_or_missing_state_is_refused(serve) -> None:
    _, url = serve()
    with browser() as client:
        outcome = walk_sign_in(
            client, url, login="carol", tamper=lambda target: _with_state(target, "forged")
        )
        assert outcome.location == "/#signin-error=state"
        assert session_of(client, url).status_code == 401
    # A callback in a browser that never started the sign-in (no state cookie): refused,
    # however well-formed.
    with browser() as client:
        answer = client.get(f"{url}/api/oidc/callback", params={"code": "x", "state": "y"})
        assert answer.status_code == 302
        assert answer.headers["location"] == "/#signin-error=state"
        assert session_of(client, url).status_code == 401


def test_refused_consent_comes_back_as_denied(serve) -> None:
    _, url = serve()
    with browser() as client:
        outcome = walk_sign_in(client, url, login="carol", consent=False)
        assert outcome.location == "/#signin-error=denied"
        assert session_of(client, url).status_code == 401


def test_a_disabled_user_is_refused(serve) -> None:
    app, url = serve()
    with browser() as client:
        assert walk_sign_in(client, url, login="carol").location == "/"
    with open_db(app) as db:  # an administrator disables the account
        db.execute(update(User).where(User.username == "carol.smith").values(disabled=True))
        db.commit()
    with browser() as client:
        assert walk_sign_in(client, url, login="carol").location == "/#signin-error=disabled"
        assert session_of(client, url).status_code == 401


def test_no_account_is_made_before_the_first_administrator(serve) -> None:
    _, url = serve(seed=False)
    with browser() as client:
        assert walk_sign_in(client, url, login="carol").location == "/#signin-error=setup"
        assert session_of(client, url).status_code == 401


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.getMessage()} {getattr(record, 'fields', '')}")


def test_the_log_holds_no_code_token_or_secret(serve, provider: OidcProvider) -> None:
    _, url = serve()
    records = _Records()
    logger = logging.getLogger("ambient")
    logger.addHandler(records)
    try:
        with browser() as client:
            outcome = walk_sign_in(client, url, login="carol")
            assert outcome.location == "/"
            callback = next(u for u in outcome.visited if "/api/oidc/callback" in u)
            cookie = client.cookies.get("ana_session")
    finally:
        logger.removeHandler(records)
    code = dict(parse_qsl(urlsplit(callback).query))["code"]
    text = "\n".join(records.lines)
    assert "user.create" in text  # the audit line is there, and names the new user
    for secret in (code, cookie, provider.client_secret):
        assert secret and secret not in text


def test_the_login_redirect_carries_pkce_and_a_signed_state_cookie(
    serve, provider: OidcProvider
) -> None:
    _, url = serve()
    with browser() as client:
        response = client.get(f"{url}/api/oidc/login")
    assert response.status_code == 302
    target = urlsplit(response.headers["location"])
    assert f"{target.scheme}://{target.netloc}" == provider.issuer
    query = dict(parse_qsl(target.query))
    assert query["response_type"] == "code"
    assert query["client_id"] == provider.client_id
    assert query["code_challenge_method"] == "S256"
    assert query["redirect_uri"] == f"{url}/api/oidc/callback"
    assert {"state", "nonce", "code_challenge"} <= set(query)
    assert "openid" in query["scope"].split()
    cookie = response.headers["set-cookie"].lower()
    assert cookie.startswith("ana_oidc=")
    assert "httponly" in cookie and "samesite=lax" in cookie and "path=/api/oidc" in cookie


def test_the_answer_of_a_provider_that_cannot_be_reached(app_factory) -> None:
    from support.servers import free_port

    app = app_factory(
        oidc_issuer=f"http://127.0.0.1:{free_port()}", oidc_client_id="x", oidc_client_secret="y"
    )
    client = TestClient(app)
    response = client.get("/api/oidc/login", follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"] == "/#signin-error=provider"


def test_the_state_cookie_is_refused_when_forged_or_old() -> None:
    from backend.services.oidc import STATE_SECONDS, OidcRefused, read_state, sign_state

    values = {"s": "state", "n": "nonce", "v": "verifier", "r": "http://x/api/oidc/callback"}
    good = sign_state("server-secret", values)
    assert read_state("server-secret", good)["s"] == "state"
    old = sign_state("server-secret", values, now=time.time() - STATE_SECONDS - 1)
    header, payload, signature = good.split(".")
    for bad in (
        sign_state("another-secret", values),  # signed by someone else
        old,
        f"{header}.{payload}.{signature[:-2]}AA",
        "",
        None,
        "not.a.token",
    ):
        with pytest.raises(OidcRefused) as refused:
            read_state("server-secret", bad)
        assert refused.value.code == "state"


@pytest.mark.parametrize(
    ("given", "folded"),
    [
        ("Carol.Smith", "carol.smith"),
        ("José Núñez", "jose-nunez"),
        ("李", "user"),
        ("--a@b--", "a-b"),
        ("x" * 80, "x" * 64),
    ],
)
def test_usernames_are_folded_to_the_account_rules(given: str, folded: str) -> None:
    from backend.services.oidc import fold_username
    from backend.services.users import username_problem

    assert fold_username(given) == folded
    assert username_problem(folded) is None
