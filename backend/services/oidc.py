"""Sign-in with OpenID Connect (issue 31, docs/oidc.md): the authorization code flow with PKCE.

`OidcClient` talks to the provider (discovery, token exchange, ID token and userinfo), with
Authlib's client doing the OAuth and ID token work; `begin` and `finish` are the two halves of
one sign-in, and the state that joins them (state, nonce, PKCE verifier) travels in a short
signed cookie, never in the database. `user_for_identity` maps the provider's (issuer,
subject) to a local user, creating one on first sign-in.

Every refusal is an `OidcRefused` carrying a short code the page can show; nothing here logs
or returns a code, a token or a secret.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import anyio
import httpx
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.httpx_client import AsyncOAuth2Client
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet, OctKey
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.config import Settings
from backend.models import User
from backend.models.identities import UserIdentity
from backend.services.users import MAX_USERNAME, username_problem

SCOPE = "openid email profile"
# The sign-in must come back from the provider within this time (the state cookie's life).
STATE_SECONDS = 600
# Discovery and the provider's keys are fetched once and kept this long (a key the cache lacks
# fetches them again at once: the provider rotated).
METADATA_SECONDS = 3600
HTTP_TIMEOUT_SECONDS = 10
# Asymmetric signatures only: "none" proves nothing, and HS* would make the client secret the
# key.
_UNSAFE_ALGORITHMS = frozenset({"none", "HS256", "HS384", "HS512"})
_USERNAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")
# A password hash no password matches (not an argon2 hash): such a user signs in only through
# the provider, until an administrator or the user sets a password.
NO_PASSWORD_PREFIX = "!oidc:"


class OidcRefused(Exception):
    """The sign-in cannot go on; `code` is the short reason the page is sent back with."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Identity:
    """What a successful sign-in at the provider established (the ID token's checked claims,
    completed from userinfo)."""

    issuer: str
    subject: str
    email: str | None
    email_verified: bool
    preferred_username: str | None


def _state_key(secret_key: str) -> OctKey:
    # A key of its own, derived from the server secret: a state cookie is never valid as
    # anything else the secret signs.
    derived = hmac.new(
        secret_key.encode("utf-8", "surrogatepass"), b"ana-oidc-state-v1", hashlib.sha256
    ).digest()
    return OctKey.import_key(derived)


def sign_state(secret_key: str, values: dict[str, Any], *, now: float | None = None) -> str:
    """A compact JWT (HS256 with a key derived from the server secret) holding `values` and an
    expiry STATE_SECONDS away."""
    claims = {**values, "exp": int((now or time.time()) + STATE_SECONDS)}
    return jwt.encode({"alg": "HS256"}, claims, _state_key(secret_key))


def read_state(secret_key: str, value: str | None) -> dict[str, Any]:
    """The values `sign_state` signed, or OidcRefused("state") when missing, forged or old."""
    if not value or len(value) > 4096:
        raise OidcRefused("state")
    try:
        token = jwt.decode(value, _state_key(secret_key), algorithms=["HS256"])
    except (JoseError, ValueError):
        raise OidcRefused("state") from None
    claims = dict(token.claims)
    exp = claims.get("exp")
    if not isinstance(exp, int) or exp < time.time():
        raise OidcRefused("state")
    return claims


class OidcClient:
    """The provider of one configuration: discovery and keys cached, calls with timeouts."""

    def __init__(self, settings: Settings) -> None:
        self.issuer = (settings.oidc_issuer or "").strip()
        self.client_id = (settings.oidc_client_id or "").strip()
        self.client_secret = settings.oidc_client_secret or None
        self._metadata: dict[str, Any] | None = None
        self._metadata_at = 0.0
        self._jwks: dict[str, Any] | None = None
        self._lock = anyio.Lock()

    async def _get_json(self, url: str) -> dict[str, Any]:
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_SECONDS) as client:
            response = await client.get(url, headers={"Accept": "application/json"})
            response.raise_for_status()
            data = response.json()
        if not isinstance(data, dict):
            raise TypeError("not a JSON object")
        return data

    async def metadata(self) -> dict[str, Any]:
        """The provider's discovery document, fetched on first use and after METADATA_SECONDS;
        its issuer must be the configured one exactly (OpenID Connect Discovery §4.3)."""
        async with self._lock:
            fresh = time.monotonic() - self._metadata_at < METADATA_SECONDS
            if self._metadata is None or not fresh:
                url = self.issuer.rstrip("/") + "/.well-known/openid-configuration"
                try:
                    data = await self._get_json(url)
                except (httpx.HTTPError, ValueError, TypeError):
                    raise OidcRefused("provider") from None
                needed = ("authorization_endpoint", "token_endpoint", "jwks_uri")
                if data.get("issuer") != self.issuer or not all(
                    isinstance(data.get(k), str) for k in needed
                ):
                    raise OidcRefused("provider")
                self._metadata, self._metadata_at, self._jwks = data, time.monotonic(), None
            return self._metadata

    async def _key_set(self, *, refresh: bool) -> KeySet:
        metadata = await self.metadata()
        if self._jwks is None or refresh:
            try:
                self._jwks = await self._get_json(metadata["jwks_uri"])
            except (httpx.HTTPError, ValueError, TypeError):
                raise OidcRefused("provider") from None
        return KeySet.import_key_set(self._jwks)  # type: ignore[arg-type]

    def _oauth(self, **kwargs: Any) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=self.client_id,
            client_secret=self.client_secret,
            scope=SCOPE,
            code_challenge_method="S256",
            timeout=HTTP_TIMEOUT_SECONDS,
            **kwargs,
        )

    async def begin(self, *, redirect_uri: str, secret_key: str) -> tuple[str, str]:
        """Start a sign-in: (the provider's authorization URL, the signed state cookie)."""
        metadata = await self.metadata()
        state = secrets.token_urlsafe(24)
        nonce = secrets.token_urlsafe(24)
        verifier = secrets.token_urlsafe(48)  # 64 characters: RFC 7636 allows 43 to 128
        async with self._oauth(redirect_uri=redirect_uri) as client:
            url, _ = client.create_authorization_url(
                metadata["authorization_endpoint"],
                state=state,
                code_verifier=verifier,
                nonce=nonce,
            )
        cookie = sign_state(secret_key, {"s": state, "n": nonce, "v": verifier, "r": redirect_uri})
        return url, cookie

    async def finish(
        self, *, params: dict[str, str], cookie: str | None, secret_key: str
    ) -> Identity:
        """The provider's answer at the callback (`params`: its query), checked against the
        state cookie: the code exchanged for tokens, the ID token validated (signature against
        the provider's keys, issuer, audience, expiry, nonce), the user's claims read."""
        saved = read_state(secret_key, cookie)
        state = params.get("state") or ""
        if not hmac.compare_digest(state.encode(), str(saved.get("s", "")).encode()):
            raise OidcRefused("state")
        if params.get("iss", self.issuer) != self.issuer:  # RFC 9207: another provider's answer
            raise OidcRefused("provider")
        if "error" in params:
            denied = params["error"] in ("access_denied", "consent_required", "login_required")
            raise OidcRefused("denied" if denied else "provider")
        code = params.get("code")
        if not code:
            raise OidcRefused("provider")
        metadata = await self.metadata()
        methods = metadata.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        method = "client_secret_basic" if "client_secret_basic" in methods else "client_secret_post"
        try:
            async with self._oauth(
                redirect_uri=saved["r"], token_endpoint_auth_method=method
            ) as client:
                token = await client.fetch_token(
                    metadata["token_endpoint"],
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=saved["v"],
                )
        except (AuthlibBaseError, httpx.HTTPError, ValueError, KeyError, TypeError):
            # the provider refused the code, could not be reached or answered nonsense
            raise OidcRefused("provider") from None
        id_token = token.get("id_token")
        access_token = token.get("access_token")
        if not isinstance(id_token, str):
            raise OidcRefused("token")
        claims = await self._id_token_claims(id_token, access_token, nonce=saved["n"])
        if (not claims.get("email") or "email_verified" not in claims) and isinstance(
            access_token, str
        ):
            claims = {**await self._userinfo(access_token, claims["sub"]), **claims}
        return _identity(self.issuer, claims)

    async def _id_token_claims(
        self, id_token: str, access_token: Any, *, nonce: str
    ) -> dict[str, Any]:
        metadata = await self.metadata()
        offered = metadata.get("id_token_signing_alg_values_supported") or ["RS256"]
        algorithms = [a for a in offered if isinstance(a, str) and a not in _UNSAFE_ALGORITHMS]
        try:
            try:
                keys = await self._key_set(refresh=False)
                decoded = jwt.decode(id_token, keys, algorithms=algorithms)
            except InvalidKeyIdError:  # the provider rotated its keys since the cache
                keys = await self._key_set(refresh=True)
                decoded = jwt.decode(id_token, keys, algorithms=algorithms)
            params: dict[str, Any] = {"nonce": nonce, "client_id": self.client_id}
            if isinstance(access_token, str):
                params["access_token"] = access_token
            # Authlib checks `aud` only when told to: it must name this client.
            options = {
                "iss": {"essential": True, "values": [self.issuer]},
                "aud": {"essential": True, "values": [self.client_id]},
            }
            checked = CodeIDToken(decoded.claims, decoded.header, options, params)
            checked.validate(leeway=60)
        except (JoseError, AuthlibBaseError, ValueError, KeyError, TypeError):
            # joserfc's and Authlib's errors: any of them means not valid
            raise OidcRefused("token") from None
        claims = dict(checked)
        if not isinstance(claims.get("sub"), str) or not claims["sub"]:
            raise OidcRefused("token")
        return claims

    async def _userinfo(self, access_token: str, subject: str) -> dict[str, Any]:
        """The userinfo claims, when the ID token left the email out (a code flow's ID token
        often carries only `sub`); a different `sub` there is refused."""
        url = (await self.metadata()).get("userinfo_endpoint")
        if not isinstance(url, str):
            return {}
        try:
            async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_SECONDS) as client:
                response = await client.get(
                    url, headers={"Authorization": f"Bearer {access_token}"}
                )
                response.raise_for_status()
                data = response.json()
        except (httpx.HTTPError, ValueError):
            raise OidcRefused("provider") from None
        if not isinstance(data, dict) or data.get("sub") != subject:
            raise OidcRefused("token")
        return data


def _identity(issuer: str, claims: dict[str, Any]) -> Identity:
    email = claims.get("email")
    verified = claims.get("email_verified")
    name = claims.get("preferred_username")
    if len(claims["sub"]) > 255 or len(issuer) > 255:  # the columns' size; no provider nears it
        raise OidcRefused("token")
    if isinstance(email, str) and len(email) > 320:
        email = None
    return Identity(
        issuer=issuer,
        subject=claims["sub"],
        email=email.strip() if isinstance(email, str) and "@" in email else None,
        email_verified=verified is True or verified == "true",
        preferred_username=name if isinstance(name, str) else None,
    )


def check_domain(identity: Identity, allowed: list[str]) -> None:
    """OidcRefused("domain") when an allowed-domains list is set and the provider's email is
    missing, unverified or of another domain."""
    if not allowed:
        return
    if identity.email is None or not identity.email_verified:
        raise OidcRefused("domain")
    if identity.email.rsplit("@", 1)[1].lower() not in allowed:
        raise OidcRefused("domain")


def fold_username(candidate: str) -> str:
    """`candidate` folded to the account rules (SPEC §17): lower case, accents dropped, other
    characters as `-`, at most MAX_USERNAME; "user" when nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", candidate).encode("ascii", "ignore").decode()
    folded = "".join(c if c in _USERNAME_CHARS else "-" for c in ascii_text.lower())
    while "--" in folded:
        folded = folded.replace("--", "-")
    folded = folded.strip("-.")[:MAX_USERNAME].strip("-.")
    return folded or "user"


def _free_username(db: Session, base: str) -> str:
    """`base`, or `base-2`, `base-3`, ... (shortened to fit): the first one nobody has."""
    for n in range(1, 10_000):
        suffix = "" if n == 1 else f"-{n}"
        name = base[: MAX_USERNAME - len(suffix)] + suffix
        if db.scalar(select(User.id).where(User.username == name)) is None:
            return name
    return f"user-{secrets.token_hex(8)}"


def user_for_identity(db: Session, identity: Identity, *, now: datetime) -> tuple[User, bool]:
    """The user this provider account signs in as, and whether it was created just now.

    Found by (issuer, subject) alone. Otherwise a new user is made, named from
    preferred_username or the email's local part (made unique: a provider account called
    "alice" becomes "alice-2" beside a local alice, never alice herself), with no usable
    password. OidcRefused("setup") while the installation has no user at all: its first
    administrator is made by the setup form or the command line, not by whoever signs in
    first at the provider.
    """
    for _ in range(3):  # two first sign-ins of one account at once: the loser finds the row
        link = db.scalar(
            select(UserIdentity).where(
                UserIdentity.issuer == identity.issuer, UserIdentity.subject == identity.subject
            )
        )
        if link is not None:
            user = db.get(User, link.user_id)
            assert user is not None  # the foreign key cascades
            link.last_sign_in_at = now
            link.email = identity.email
            db.commit()
            return user, False
        if not db.scalar(select(func.count()).select_from(User)):
            raise OidcRefused("setup")
        local = identity.email.rsplit("@", 1)[0] if identity.email else ""
        base = fold_username(identity.preferred_username or local or "user")
        assert username_problem(base) is None
        user = User(
            username=_free_username(db, base),
            password_hash=NO_PASSWORD_PREFIX + secrets.token_hex(16),
            created_at=now,
        )
        db.add(user)
        db.flush()
        db.add(
            UserIdentity(
                user_id=user.id,
                issuer=identity.issuer,
                subject=identity.subject,
                email=identity.email,
                created_at=now,
                last_sign_in_at=now,
            )
        )
        try:
            db.commit()
        except IntegrityError:  # the identity, or the username, was taken meanwhile
            db.rollback()
            continue
        return user, True
    raise OidcRefused("busy")
