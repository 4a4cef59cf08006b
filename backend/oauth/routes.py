"""The OAuth 2.1 endpoints for /mcp (SPEC §19), on the `mcp` SDK's own handlers.

- `/.well-known/oauth-protected-resource[/mcp]` (RFC 9728) and
  `/.well-known/oauth-authorization-server` (RFC 8414): the SDK's metadata models, built
  per request for the origin the request came to.
- `/oauth/register` (RFC 7591), `/oauth/authorize`, `/oauth/token`, `/oauth/revoke`
  (RFC 7009): the SDK's handlers over backend.oauth.provider; registration and the token
  endpoint are rate-limited per client address.
- `/oauth/consent`: our server-rendered page where the signed-in user (the app's session
  cookie) picks the scope and reach for the client, or denies. A plain form POST: no script,
  its own strict CSP, cross-site posts refused by the app's same-origin guard (and the
  SameSite=Lax cookie). The authorization request travels in hidden fields and is checked
  again on the POST, so nothing is kept between the two requests.
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode, urlsplit

import anyio
from fastapi import FastAPI
from limits import parse as parse_rate_limit
from mcp.server.auth.handlers.authorize import AuthorizationHandler
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.handlers.revoke import RevocationHandler
from mcp.server.auth.handlers.token import TokenHandler
from mcp.server.auth.middleware.client_auth import ClientAuthenticator
from mcp.server.auth.routes import build_metadata
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route, request_response

from ambient.paths import PathError, normalize_folder
from backend.api.deps import SESSION_COOKIE
from backend.db import utcnow
from backend.limits.throttle import client_address
from backend.oauth import store, urls
from backend.oauth.provider import Provider, redirect_uri_problem
from backend.services import sessions as sessions_service
from backend.services import workspaces as workspaces_service
from backend.services.tokens import READ, SCOPES

# A client registers once per machine; a script registering in a loop is refused early.
REGISTER_LIMIT = parse_rate_limit("10/minute")
TOO_MANY = "Too many requests from this address. Please wait a minute and try again."
PKCE_CHALLENGE = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
SCOPE_LABELS = {
    "read": "Read notes",
    "propose": "Read notes and propose edits you apply",
    "write": "Read, create and change notes",
}

Handler = Callable[[Request], Awaitable[Response]]


def _provider(request: Request) -> Provider:
    return Provider(request.app.state.sessionmaker, urls.origin_of(request.scope))


def _metadata(origin: str) -> OAuthMetadata:
    metadata = build_metadata(
        origin,  # type: ignore[arg-type]  # pydantic validates the string into AnyHttpUrl
        None,
        ClientRegistrationOptions(enabled=True, valid_scopes=list(SCOPES)),
        RevocationOptions(enabled=True),
    )
    return OAuthMetadata.model_validate(
        metadata.model_dump(mode="json", exclude_none=True)
        | {
            "authorization_endpoint": origin + urls.AUTHORIZE,
            "token_endpoint": origin + urls.TOKEN,
            "registration_endpoint": origin + urls.REGISTER,
            "revocation_endpoint": origin + urls.REVOKE,
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "authorization_response_iss_parameter_supported": True,
        }
    )


async def authorization_server_metadata(request: Request) -> Response:
    origin = urls.origin_of(request.scope)
    return await MetadataHandler(_metadata(origin)).handle(request)


async def protected_resource_metadata(request: Request) -> Response:
    origin = urls.origin_of(request.scope)
    metadata = ProtectedResourceMetadata(
        resource=origin + urls.MCP_PATH,
        authorization_servers=[origin],
        scopes_supported=list(SCOPES),
        resource_name="Ambient notes",
    )
    return await ProtectedResourceMetadataHandler(metadata).handle(request)


def _limited(item: Any, kind: str, handler: Handler) -> Handler:
    """`handler` behind a per-address limit (the app's `limits` storage: Redis when shared)."""

    async def limited(request: Request) -> Response:
        throttle = request.app.state.throttle
        ids = ("oauth", kind, client_address(request))
        limit = item or throttle.route_limit
        if not throttle.limiter.hit(limit, *ids):
            return JSONResponse(
                {"error": "too_many_requests", "error_description": TOO_MANY},
                status_code=429,
                headers={"Retry-After": str(throttle.retry_after(limit, *ids))},
            )
        answer: Response = await handler(request)
        return answer

    return limited


async def register(request: Request) -> Response:
    options = ClientRegistrationOptions(enabled=True, valid_scopes=list(SCOPES))
    return await RegistrationHandler(_provider(request), options).handle(request)


async def authorize(request: Request) -> Response:
    return await AuthorizationHandler(_provider(request)).handle(request)


async def token(request: Request) -> Response:
    provider = _provider(request)
    answer: Response = await TokenHandler(provider, ClientAuthenticator(provider)).handle(request)
    return answer


async def revoke(request: Request) -> Response:
    # The SDK's RevocationRequest requires a client_secret field even from a public client,
    # which RFC 7009 does not ask for: an absent one is read as empty (no secret is kept).
    form = await request.form()
    if "client_secret" not in form:
        request._form = FormData([*form.multi_items(), ("client_secret", "")])
    provider = _provider(request)
    return await RevocationHandler(provider, ClientAuthenticator(provider)).handle(request)


# --- the consent page ---


class _Refused(Exception):
    """The authorization request cannot be trusted: answered to the user, never redirected."""


def _checked_request(db: Session, provider: Provider, params: Any) -> tuple[Any, dict[str, str]]:
    """The client and the authorization request from the query (GET) or hidden fields
    (POST), checked as the authorization endpoint checked them."""
    fields = {
        key: str(params.get(key) or "")
        for key in ("client_id", "redirect_uri", "code_challenge", "resource", "state", "scope")
    }
    client = store.get_client(db, fields["client_id"])
    if client is None:
        raise _Refused("This application is not registered here (any more).")
    if fields["redirect_uri"] not in store.redirect_uris(client) or redirect_uri_problem(
        fields["redirect_uri"]
    ):
        raise _Refused("The application asked to return to an address it did not register.")
    if not PKCE_CHALLENGE.fullmatch(fields["code_challenge"]):
        raise _Refused("The request has no valid PKCE code challenge.")
    if fields["resource"] != provider.resource:
        raise _Refused("The request is for another server.")
    return client, fields


def _signed_in(request: Request, db: Session) -> Any:
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return None
    secret = request.app.state.settings.secret_key
    user = sessions_service.user_for_token(db, token=cookie, now=utcnow(), secret=secret)
    if user is not None and isinstance(request.scope.get("state"), dict):
        request.scope["state"]["user_id"] = user.id  # the request log names the user
    return user


def _csp(redirect_uri: str | None) -> str:
    # The form posts here and the answer redirects to the client: both are form targets.
    target = ""
    if redirect_uri:
        parts = urlsplit(redirect_uri)
        target = f" {parts.scheme}://{parts.netloc}"
    return (
        "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        f"form-action 'self'{target}; base-uri 'none'; frame-ancestors 'none'"
    )


def _page(title: str, body: str, status: int = 200, redirect_uri: str | None = None) -> Response:
    e = html.escape
    text = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)} - Ambient notes</title>
<style>
body {{ font: 15px/1.5 system-ui, sans-serif; background: #f6f6f4; color: #1f2328;
  margin: 0; display: grid; place-items: center; min-height: 100vh; }}
main {{ background: #fff; border: 1px solid #d0d7de; border-radius: 10px; padding: 24px 28px;
  max-width: 440px; width: calc(100% - 40px); box-shadow: 0 4px 18px rgba(0,0,0,.06); }}
h1 {{ font-size: 18px; margin: 0 0 12px; }}
label {{ display: block; margin: 14px 0 4px; font-weight: 600; }}
select, input[type=text] {{ width: 100%; box-sizing: border-box; padding: 6px 8px;
  border: 1px solid #d0d7de; border-radius: 6px; font: inherit; }}
.host {{ color: #57606a; font-size: 13px; }}
.actions {{ display: flex; gap: 10px; justify-content: flex-end; margin-top: 20px; }}
button {{ font: inherit; padding: 6px 16px; border-radius: 6px; border: 1px solid #d0d7de;
  background: #f6f8fa; cursor: pointer; }}
button.primary {{ background: #1f6feb; border-color: #1f6feb; color: #fff; }}
</style></head>
<body><main>{body}</main></body></html>"""
    return HTMLResponse(
        text,
        status_code=status,
        headers={
            "Content-Security-Policy": _csp(redirect_uri),
            "Cache-Control": "no-store",
            "Referrer-Policy": "same-origin",  # no-referrer would make the POST's Origin "null"
        },
    )


def _message(title: str, text: str, status: int) -> Response:
    e = html.escape
    return _page(title, f"<h1>{e(title)}</h1><p>{e(text)}</p>", status)


def _consent_form(client: Any, fields: dict[str, str], workspaces: list[tuple[Any, str]]) -> str:
    e = html.escape
    host = urlsplit(fields["redirect_uri"]).netloc
    hidden = "".join(
        f'<input type="hidden" name="{e(k)}" value="{e(v)}">' for k, v in fields.items()
    )
    scopes = "".join(
        f'<option value="{s}"{" selected" if s == READ else ""}>{e(SCOPE_LABELS[s])}</option>'
        for s in SCOPES
    )
    spaces = '<option value="">All my workspaces</option>' + "".join(
        f'<option value="{e(ws.id)}">{e(ws.name)} ({e(ws.id)})</option>' for ws, _ in workspaces
    )
    return f"""<form method="post" action="{urls.CONSENT}" data-testid="oauth-consent">
<h1><span data-testid="oauth-client-name">{e(client.name)}</span> wants to use your notes</h1>
<p class="host">It will return to <strong>{e(host)}</strong>. Allow it only if you started
this connection.</p>
{hidden}
<label for="oauth-scope">What it may do</label>
<select id="oauth-scope" name="chosen_scope" data-testid="oauth-scope">{scopes}</select>
<label for="oauth-workspace">Which notes</label>
<select id="oauth-workspace" name="workspace" data-testid="oauth-workspace">{spaces}</select>
<label for="oauth-folder">Only under this folder (optional)</label>
<input type="text" id="oauth-folder" name="folder" data-testid="oauth-folder"
 placeholder="e.g. projects/2026" autocomplete="off">
<div class="actions">
<button type="submit" name="decision" value="deny" data-testid="oauth-deny">Deny</button>
<button type="submit" name="decision" value="allow" class="primary"
 data-testid="oauth-allow">Allow</button>
</div></form>"""


def _back_to_client(redirect_uri: str, issuer: str, **params: str) -> Response:
    query = {k: v for k, v in params.items() if v}
    query["iss"] = issuer  # RFC 9207: the client checks it came from us
    sep = "&" if urlsplit(redirect_uri).query else "?"
    return RedirectResponse(
        redirect_uri + sep + urlencode(query),
        status_code=303,
        headers={"Cache-Control": "no-store"},
    )


def _show_consent(request: Request) -> Response:
    provider = _provider(request)
    with request.app.state.sessionmaker() as db:
        try:
            client, fields = _checked_request(db, provider, request.query_params)
        except _Refused as exc:
            return _message("This link does not work", str(exc), 400)
        user = _signed_in(request, db)
        if user is None:
            body = (
                "<h1>Sign in first</h1><p>To connect an application to your notes, sign in "
                'to the <a href="/" target="_blank" rel="noopener">notes page</a> in this '
                "browser, then come back to this tab and reload it.</p>"
            )
            return _page("Sign in first", body, 401)
        workspaces = workspaces_service.list_for_user(db, user_id=user.id)
        body = _consent_form(client, fields, workspaces)
        return _page("Connect an application", body, redirect_uri=fields["redirect_uri"])


def _decide(request: Request, form: Any) -> Response:
    provider = _provider(request)
    with request.app.state.sessionmaker() as db:
        try:
            client, fields = _checked_request(db, provider, form)
        except _Refused as exc:
            return _message("This link does not work", str(exc), 400)
        user = _signed_in(request, db)
        if user is None:
            return _message("Sign in first", "Your sign-in has ended; sign in again.", 401)
        back = fields["redirect_uri"]
        state = fields["state"]
        if form.get("decision") != "allow":
            return _back_to_client(back, provider.issuer, error="access_denied", state=state)
        scope = str(form.get("chosen_scope") or "")
        if scope not in SCOPES:
            return _message("Choose what it may do", "Pick one of the offered choices.", 400)
        workspace = str(form.get("workspace") or "") or None
        if workspace is not None and not workspaces_service.is_member(
            db, user_id=user.id, workspace_id=workspace
        ):
            return _message("Choose which notes", "You are not a member of that workspace.", 403)
        folder_text = str(form.get("folder") or "").strip()
        folder = None
        if folder_text:
            try:
                folder = normalize_folder(folder_text)
            except PathError as exc:
                return _message("That is not a valid folder", str(exc), 400)
        code = store.create_code(
            db,
            client_id=client.id,
            user_id=user.id,
            redirect_uri=back,
            code_challenge=fields["code_challenge"],
            resource=fields["resource"],
            scope=scope,
            workspace_id=workspace,
            folder=folder,
            now=utcnow(),
        )
        return _back_to_client(back, provider.issuer, code=code, state=state)


async def consent(request: Request) -> Response:
    if request.method == "GET":
        return await anyio.to_thread.run_sync(_show_consent, request)
    form = await request.form()
    return await anyio.to_thread.run_sync(_decide, request, form)


def _cors(handler: Handler, methods: list[str]) -> Any:
    """As the SDK's routes: clients running in a browser may read metadata and call these."""
    return CORSMiddleware(
        request_response(handler), allow_origins="*", allow_methods=methods, allow_headers=["*"]
    )


def mount_oauth(app: FastAPI) -> None:
    """Add the OAuth routes (before the page, which is mounted last)."""
    get, post = ["GET", "OPTIONS"], ["POST", "OPTIONS"]
    routes = [
        Route(urls.PROTECTED_RESOURCE, _cors(protected_resource_metadata, get), methods=get),
        Route(
            urls.PROTECTED_RESOURCE + urls.MCP_PATH,
            _cors(protected_resource_metadata, get),
            methods=get,
        ),
        Route(urls.AUTHORIZATION_SERVER, _cors(authorization_server_metadata, get), methods=get),
        Route(urls.AUTHORIZE, authorize, methods=["GET", "POST"]),
        Route(urls.TOKEN, _cors(_limited(None, "token", token), post), methods=post),
        Route(
            urls.REGISTER, _cors(_limited(REGISTER_LIMIT, "register", register), post), methods=post
        ),
        Route(urls.REVOKE, _cors(revoke, post), methods=post),
        Route(urls.CONSENT, consent, methods=["GET", "POST"]),
    ]
    app.router.routes.extend(routes)
