"""Sign-in with an identity provider in the page (docs/oidc.md): the sign-in form offers the
server's provider, a person goes through a real OpenID provider's pages (oidc-provider in
Node) and comes back signed in; a refused sign-in comes back with its reason in words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from e2e.conftest import Server, wait_ready
from support.oidc import OidcProvider, start_provider

ACCOUNTS = {
    "dana": {"email": "dana@example.com", "email_verified": True, "preferred_username": "dana"},
    "eve": {"email": "eve@elsewhere.test", "email_verified": True, "preferred_username": "eve"},
}


@pytest.fixture
def provider(tmp_path) -> Iterator[OidcProvider]:
    started = start_provider(ACCOUNTS, log_dir=tmp_path)
    yield started
    started.stop()


@pytest.fixture
def sso_server(tmp_path, provider: OidcProvider) -> Iterator[Server]:
    env = {
        "ANA_OIDC_ISSUER": provider.issuer,
        "ANA_OIDC_CLIENT_ID": provider.client_id,
        "ANA_OIDC_CLIENT_SECRET": provider.client_secret,
        "ANA_OIDC_ALLOWED_DOMAINS": "example.com",
        "ANA_OIDC_NAME": "Example SSO",
    }
    server = Server(tmp_path / "data", port=provider.app_port, env=env).start()
    yield server
    server.stop()


def through_the_provider(page: Page, login: str) -> None:
    """The provider's own pages: its login form (any password), then its consent form."""
    page.locator("input[name=login]").fill(login)
    page.locator("input[name=password]").fill("any-password")
    page.locator("button[type=submit]").first.click()
    page.locator("button[type=submit]").first.click()  # "Continue" on the consent page


def test_signing_in_with_the_identity_provider(page: Page, sso_server: Server):
    page.goto(sso_server.url + "/")
    wait_ready(page)
    button = page.get_by_test_id("login-provider")
    expect(button).to_have_text("Sign in with Example SSO")
    button.click()
    through_the_provider(page, "dana")
    expect(page.get_by_test_id("workspace-new")).to_be_visible()  # signed in, in the page
    me = page.request.get(f"{sso_server.url}/api/session")
    assert me.ok and me.json()["username"] == "dana"


def test_a_refused_sign_in_says_why(page: Page, sso_server: Server):
    page.goto(sso_server.url + "/")
    wait_ready(page)
    page.get_by_test_id("login-provider").click()
    through_the_provider(page, "eve")  # elsewhere.test is not an allowed domain
    expect(page.get_by_role("alert").filter(has_text="may not sign in here")).to_be_visible()
    assert "signin-error" not in page.url  # the reason is said once, then gone from the address
    expect(page.get_by_test_id("login-username")).to_be_visible()
