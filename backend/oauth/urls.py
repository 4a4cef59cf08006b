"""Where the OAuth endpoints live, as seen from one request (the app has no fixed public URL:
its origin is the scheme and Host of the request, as for the same-origin guard)."""

from __future__ import annotations

from starlette.datastructures import URL
from starlette.types import Scope

MCP_PATH = "/mcp"
PROTECTED_RESOURCE = "/.well-known/oauth-protected-resource"
AUTHORIZATION_SERVER = "/.well-known/oauth-authorization-server"
AUTHORIZE = "/oauth/authorize"
TOKEN = "/oauth/token"
REGISTER = "/oauth/register"
REVOKE = "/oauth/revoke"
CONSENT = "/oauth/consent"


def origin_of(scope: Scope) -> str:
    """`scheme://host[:port]` of the request (Host was checked by TrustedHostMiddleware;
    behind a trusted proxy uvicorn has already set the scheme from X-Forwarded-Proto)."""
    url = URL(scope=scope)
    return f"{url.scheme}://{url.netloc}"


def resource_metadata_url(origin: str) -> str:
    """RFC 9728 §3.1: the well-known path with the resource's path appended."""
    return origin + PROTECTED_RESOURCE + MCP_PATH


# Endpoints that read no cookie (the client proves itself with PKCE or a token): a web page on
# another origin may call them (CORS, as the SDK's routes allow), so the app's same-origin
# guard, which protects cookie-authenticated writes, lets them through.
COOKIELESS = frozenset({TOKEN, REGISTER, REVOKE})
