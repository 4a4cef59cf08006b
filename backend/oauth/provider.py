"""The `mcp` SDK's authorization-server protocol (`OAuthAuthorizationServerProvider`) on our
database: the SDK's handlers do the protocol (request parsing, PKCE S256, redirect and
expiry checks, error answers), this class stores and looks up.

One provider is made per request, for the origin the request came to: the issuer is that
origin and the resource (RFC 8707) its /mcp URL, as the same-origin guard sees the app.
"""

from __future__ import annotations

import time
from datetime import datetime
from ipaddress import ip_address
from typing import Any
from urllib.parse import urlencode, urlsplit

import anyio
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from sqlalchemy.orm import Session, sessionmaker

from backend.db import utcnow
from backend.oauth import store
from backend.services.tokens import SCOPES, name_problem

CONSENT_PATH = "/oauth/consent"
LOOPBACK = ("localhost", "127.0.0.1", "::1")
GRANT_TYPES = ["authorization_code", "refresh_token"]
MAX_REDIRECT_URIS = 10
MAX_REDIRECT_URI_CHARS = 2000
WRONG_RESOURCE = "resource must be this server's MCP endpoint: {expected}"


class Code(AuthorizationCode):
    """A stored code as the SDK's token handler checks it."""

    code_sha256: str


class Refresh(RefreshToken):
    token_sha256: str


def redirect_uri_problem(uri: str) -> str | None:
    """Why `uri` cannot be a redirect URI (SPEC §19: loopback at any port, or https)."""
    if len(uri) > MAX_REDIRECT_URI_CHARS:
        return "A redirect URI is too long."
    try:
        parts = urlsplit(uri)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError:
        return "A redirect URI is not a valid URL."
    if parts.fragment:
        return "A redirect URI cannot have a fragment."
    if parts.scheme == "https" and host:
        return None
    if parts.scheme == "http" and _loopback(host):
        return None
    return "Redirect URIs must be https, or http on this machine (127.0.0.1, localhost or [::1])."


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def client_info(client: Any) -> OAuthClientInformationFull:
    """A stored client as the SDK sees it: public (no secret), both grants, every scope."""
    return OAuthClientInformationFull(
        client_id=client.id,
        client_name=client.name,
        redirect_uris=store.redirect_uris(client),
        token_endpoint_auth_method="none",
        grant_types=GRANT_TYPES,
        response_types=["code"],
        scope=" ".join(SCOPES),
        client_id_issued_at=int(client.created_at.timestamp()),
    )


def _remaining(until: datetime) -> float:
    """`until` (our clock) as a time.time() instant: the SDK compares expiry with time.time()."""
    return time.time() + (until - utcnow()).total_seconds()


class Provider:
    """OAuthAuthorizationServerProvider for one request's origin."""

    def __init__(self, sessions: sessionmaker[Session], origin: str) -> None:
        self.sessions = sessions
        self.issuer = origin
        self.resource = origin + "/mcp"

    async def _run(self, work: Any, *args: Any) -> Any:
        def job() -> Any:
            with self.sessions() as db:
                return work(db, *args)

        return await anyio.to_thread.run_sync(job)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        row = await self._run(lambda db: store.get_client(db, client_id))
        return None if row is None else client_info(row)

    async def register_client(self, client_info_: OAuthClientInformationFull) -> None:
        uris = [str(uri) for uri in client_info_.redirect_uris or []]
        if not uris or len(uris) > MAX_REDIRECT_URIS:
            raise RegistrationError("invalid_redirect_uri", "Register 1 to 10 redirect URIs.")
        for uri in uris:
            problem = redirect_uri_problem(uri)
            if problem:
                raise RegistrationError("invalid_redirect_uri", problem)
        name = (client_info_.client_name or "").strip()[:100] or urlsplit(uris[0]).netloc
        problem = name_problem(name)
        if problem:
            raise RegistrationError("invalid_client_metadata", "client_name: " + problem)
        row = await self._run(
            lambda db: store.register_client(db, name=name, redirect_uris=uris, now=utcnow())
        )
        # RFC 7591 §3.2.1 lets the server replace what the client asked for: every client is
        # public (PKCE is its proof), so no secret is minted or kept, whatever it asked.
        client_info_.client_id = row.id
        client_info_.client_name = name
        client_info_.client_secret = None
        client_info_.client_secret_expires_at = None
        client_info_.token_endpoint_auth_method = "none"
        client_info_.grant_types = list(GRANT_TYPES)

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        """The SDK checked client, redirect URI, PKCE and scope; we check the resource and
        send the browser to the consent page with the request."""
        if params.resource != self.resource:
            raise AuthorizeError("invalid_target", WRONG_RESOURCE.format(expected=self.resource))
        query = {
            "client_id": client.client_id,
            "redirect_uri": str(params.redirect_uri),
            "code_challenge": params.code_challenge,
            "resource": params.resource,
            "scope": " ".join(params.scopes or []),
        }
        if params.state is not None:
            query["state"] = params.state
        return f"{self.issuer}{CONSENT_PATH}?{urlencode(query)}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> Code | None:
        row = await self._run(
            lambda db: store.load_code(
                db, code=authorization_code, client_id=client.client_id or "", now=utcnow()
            )
        )
        if row is None:
            return None
        return Code(
            code=authorization_code,
            code_sha256=row.code_sha256,
            scopes=[row.scope],
            expires_at=_remaining(row.expires_at),
            client_id=row.client_id,
            code_challenge=row.code_challenge,
            redirect_uri=row.redirect_uri,
            redirect_uri_provided_explicitly=True,
            resource=row.resource,
            subject=str(row.user_id),
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: Code
    ) -> OAuthToken:
        issued = await self._run(
            lambda db: store.exchange_code(
                db, code_sha256=authorization_code.code_sha256, now=utcnow()
            )
        )
        if issued is None:
            raise TokenError("invalid_grant", "authorization code was already used")
        return _token(issued)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> Refresh | None:
        found = await self._run(
            lambda db: store.load_refresh(
                db, token=refresh_token, client_id=client.client_id or "", now=utcnow()
            )
        )
        if found is None:
            return None
        row, grant = found
        return Refresh(
            token=refresh_token,
            token_sha256=row.token_sha256,
            client_id=grant.client_id,
            scopes=[grant.scope],
            resource=grant.resource,
            subject=str(grant.user_id),
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: Refresh, scopes: list[str]
    ) -> OAuthToken:
        issued = await self._run(
            lambda db: store.refresh(db, token_sha256_=refresh_token.token_sha256, now=utcnow())
        )
        if issued is None:
            raise TokenError(
                "invalid_grant", "refresh token was already used; the grant is revoked"
            )
        return _token(issued)

    async def load_access_token(self, token: str) -> AccessToken | None:
        """For the revocation endpoint (/mcp resolves tokens in McpGuard)."""
        client_id = await self._run(lambda db: store.access_token_client(db, token=token))
        if client_id is None:
            return None
        return AccessToken(token=token, client_id=client_id, scopes=[], resource=self.resource)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        def work(db: Session) -> None:
            grant_id = store.grant_of_token(db, token=token.token, client_id=token.client_id)
            if grant_id is not None:
                store.revoke_grant(db, grant_id=grant_id, now=utcnow(), why="revoked by client")

        await self._run(work)

    async def exchange_identity_assertion(self, client: Any, params: Any) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "Only authorization_code and refresh_token.")


def _token(issued: store.Issued) -> OAuthToken:
    return OAuthToken(
        access_token=issued.access_token,
        token_type="Bearer",
        expires_in=issued.expires_in,
        refresh_token=issued.refresh_token,
        scope=issued.scope,
    )
