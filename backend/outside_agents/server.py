"""/mcp: the official SDK's MCP server over Streamable HTTP, behind a bearer-token guard.

The SDK's session manager runs stateless with JSON answers: every HTTP request carries its
own token and is checked on its own, so a revoked token stops working at once and nothing
lives in server memory between requests (several server processes may share a database).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import anyio
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from mcp import MCPError
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import (
    INTERNAL_ERROR,
    CallToolResult,
    ListResourcesResult,
    ListToolsResult,
    ReadResourceResult,
    TextContent,
    ToolAnnotations,
)
from pydantic import Field as PydanticField
from pydantic import ValidationError
from sqlalchemy.orm import Session, sessionmaker
from starlette.datastructures import Headers
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from backend import VERSION
from backend import tool_arguments as args
from backend.db import utcnow
from backend.errors import TooManyRequests
from backend.oauth import store as oauth_store
from backend.oauth import urls as oauth_urls
from backend.outside_agents import changes, resources, results, writing
from backend.outside_agents import tools as tools_
from backend.services import search
from backend.services import tokens as tokens_service
from backend.services.tokens import PROPOSE, READ, WRITE, Authority

log = logging.getLogger("ambient.mcp")

MCP_PATH = "/mcp"
# A tool call is a few hundred bytes; nothing an agent sends here needs more.
MAX_REQUEST_BYTES = 64 * 1024
AUTH_KEY = "ana.mcp_authority"  # scope key the guard fills in and the tools read
NO_TOKEN = (
    "Send a personal access token as 'Authorization: Bearer <token>'. Create one in the "
    "notes page's settings."
)
BAD_TOKEN = "The token is unknown, expired or revoked. Create a new one in the notes page."
FOREIGN_ORIGIN = "Requests from another web origin are not allowed here."
NO_EVENT_STREAM = (
    "This server is stateless: it sends nothing unasked, so there is no event stream to open "
    "with GET. Send each request as a POST."
)

INSTRUCTIONS = (
    "Tools for the user's Markdown notes. When the user says 'this note', 'the current "
    "note', 'what I'm looking at' or similar without naming a note, call get_active_note. "
    "When they name a note, use read_document; to find notes, list_documents or "
    "search_notes. Workspace ids look like 'personal' or 'team'; get_active_note tells you "
    "the workspace of the open note. If a result has a caveat, repeat it to the user. "
    "Depending on the token, you may also propose edits the user approves in the page "
    "(propose_edit, get_proposal) or change notes directly (create_note, and edit_note, "
    "which needs the sha256 of your last read of the note as baseSha256). To learn what "
    "changed since you last looked, call changes_since (first without a cursor)."
)

READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
PROPOSES = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False
)
WRITES = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=False
)

# The scope each tool needs (SPEC §14); tools/list shows a token only what its scope allows.
TOOL_SCOPES = {
    "get_active_note": READ,
    "list_documents": READ,
    "read_document": READ,
    "search_notes": READ,
    "changes_since": READ,
    "propose_edit": PROPOSE,
    "get_proposal": PROPOSE,
    "create_note": WRITE,
    "edit_note": WRITE,
}
SCOPE_REASON = "scope"

Work = Callable[[Session, Authority, Any], dict]


def notes_as_resources(sessions: sessionmaker[Session]) -> Any:
    """The SDK's public middleware answering resources/list and resources/read (SPEC §19)
    from the database, for the calling token's reach (backend.outside_agents.resources)."""

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        if ctx.method not in ("resources/list", "resources/read"):
            return await call_next(ctx)
        auth: Authority = ctx.request.scope[AUTH_KEY]  # set by McpGuard before the SDK runs
        params = dict(ctx.params or {})

        def work() -> Any:
            try:
                with sessions() as db:
                    if ctx.method == "resources/list":
                        page = resources.list_page(db, auth, params.get("cursor"))
                        return ListResourcesResult.model_validate(page)
                    read = resources.read(db, auth, params.get("uri"))
                    return ReadResourceResult.model_validate(read)
            except MCPError:
                raise
            except Exception:  # noqa: BLE001 - a plain sentence and a log id, never the SQL
                text = failed(ctx.method)["text"]
                raise MCPError(code=INTERNAL_ERROR, message=text) from None

        return await anyio.to_thread.run_sync(work)

    return middleware


def scope_refusal(tool: str, auth: Authority) -> dict | None:
    """The tool error for a tool beyond the token's scope, naming the scope needed."""
    needed = TOOL_SCOPES[tool]
    if auth.allows(needed):
        return None
    return {
        "ok": False,
        "reason": SCOPE_REASON,
        "scopeNeeded": needed,
        "text": f"{tool} needs a token with scope '{needed}'; this token's scope is "
        f"'{auth.scope}'. The user can create a token with scope '{needed}' in the notes "
        "page (Agents).",
    }


async def tools_within_scope(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
    """The SDK's public middleware: tools/list names only what the calling token's scope
    allows (a call beyond it is refused by the tool itself, naming the scope needed)."""
    result = await call_next(ctx)
    if ctx.method != "tools/list":
        return result
    auth: Authority = ctx.request.scope[AUTH_KEY]  # set by McpGuard before the SDK runs
    listed = ListToolsResult.model_validate(result)  # a model or its dict, as the chain hands it
    allowed = [t for t in listed.tools if auth.allows(TOOL_SCOPES[t.name])]
    return listed.model_copy(update={"tools": allowed})


class _CheckedTool(Tool):
    """An SDK tool whose arguments are checked by our own model (backend.tool_arguments)
    before anything runs: a refusal is the documented result, `ok: false` and one plain
    sentence, never the validator's own text."""

    arguments: type[args.Arguments] = PydanticField(exclude=True)
    work: Any = PydanticField(exclude=True)  # Work: (db, authority, checked arguments) -> result
    sessions: Any = PydanticField(exclude=True)  # the app's sessionmaker

    async def run(
        self, arguments: dict[str, Any], context: Context, convert_result: bool = False
    ) -> Any:
        auth: Authority = context.request_context.request.scope[AUTH_KEY]  # set by McpGuard
        refused = scope_refusal(self.name, auth)  # before the arguments: the tool is not theirs
        if refused:
            return _result(refused)
        try:
            checked = self.arguments.model_validate(arguments)
        except ValidationError as exc:
            return _result(args.refused(args.problem(exc)))
        return await anyio.to_thread.run_sync(self._run, auth, checked)

    def _run(self, auth: Authority, checked: args.Arguments) -> CallToolResult:
        try:
            with self.sessions() as db:  # a failure rolls the transaction back: nothing changed
                result = self.work(db, auth, checked)
        except Exception:  # noqa: BLE001 - the agent gets a plain sentence, the log the rest
            return _result(failed(self.name))
        if TOOL_SCOPES[self.name] != READ:  # who changed (or proposed) what; never any text
            log.info(
                "mcp %s token=%s path=%r ok=%s",
                self.name,
                auth.token_id,
                result.get("path", getattr(checked, "path", None)),
                result["ok"],
            )
        return _result(result)


def failed(tool: str) -> dict:
    """The tool error for a failure inside the server: a plain sentence and a log id, never
    the exception's text (a database error can carry SQL); the traceback goes to the log."""
    log_id = secrets.token_hex(4)
    log.exception("mcp %s failed log_id=%s", tool, log_id)
    return {
        "ok": False,
        "reason": "internal",
        "text": f"The notes server could not do that; nothing was changed. (log id {log_id})",
    }


def _result(result: dict) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=result["text"])],
        structured_content=result,
        is_error=not result["ok"],
    )


def _tool(
    sessions: sessionmaker[Session],
    name: str,
    description: str,
    model: type[args.Arguments],
    work: Work,
    annotations: ToolAnnotations = READ_ONLY,
) -> Tool:
    def unused(arguments: dict) -> None:  # the SDK wants a function; _CheckedTool.run runs work
        raise NotImplementedError

    # The SDK derives the tool's outputSchema from the function's return annotation: the
    # tool's result model (backend.outside_agents.results), whose fields every answer keeps.
    unused.__annotations__ = {"arguments": dict, "return": results.RESULTS[name]}
    base = Tool.from_function(
        unused, name=name, description=description, annotations=annotations, structured_output=True
    )
    fields = {key: getattr(base, key) for key in Tool.model_fields}
    fields["parameters"] = args.schema(model)
    return _CheckedTool(**fields, arguments=model, work=work, sessions=sessions)


def build_mcp(sessions: sessionmaker[Session], max_note_bytes: int) -> MCPServer:
    """The MCP server with its tools; each call opens its own database session."""
    tools = [
        _tool(
            sessions,
            "get_active_note",
            "Read the note the user is looking at right now in their notes page: its "
            "workspace, path, view, selection and saved text. Call this first whenever the "
            "user says 'this note', 'the current note', 'the note I have open', 'summarise "
            "this' or similar without naming a note, and again for each new request (the "
            "open note may have changed). If the result says 'stale', the saved copy is "
            "behind the screen: repeat its caveat sentence to the user.",
            args.McpGetActiveNote,
            lambda db, auth, a: tools_.get_active_note(
                db, auth=auth, max_bytes=a.max_bytes, now=utcnow()
            ),
        ),
        _tool(
            sessions,
            "list_documents",
            "List the notes of one of the user's workspaces (path and size of each). Call "
            "this when the user asks which notes they have, or to find a note by its name.",
            args.McpListDocuments,
            lambda db, auth, a: tools_.list_documents(db, auth=auth, workspace_id=a.workspace_id),
        ),
        _tool(
            sessions,
            "read_document",
            "Read one note by its path in a workspace (its saved copy). Call this when the "
            "user names a note; for 'this note' use get_active_note instead.",
            args.McpReadDocument,
            lambda db, auth, a: tools_.read_document(
                db, auth=auth, workspace_id=a.workspace_id, path=a.path, max_bytes=a.max_bytes
            ),
        ),
        _tool(
            sessions,
            "search_notes",
            "Search a workspace's notes for every word of a query (case-insensitive, "
            f"Japanese included); answers up to {search.MAX_RESULTS} notes with the line and a "
            "snippet. Call this for 'which notes mention ...' or to find a note by its content.",
            args.McpSearchNotes,
            lambda db, auth, a: tools_.search_notes(
                db, auth=auth, workspace_id=a.workspace_id, query=a.query
            ),
        ),
        _tool(
            sessions,
            "changes_since",
            "What changed in a workspace's notes since your last call: each note saved, "
            "moved or deleted, in order, with its path and revision (no text). Call it "
            "without a cursor first (the answer is empty, with a cursor), then pass the "
            "cursor it answered each time; read_document reads a changed note.",
            args.McpChangesSince,
            lambda db, auth, a: changes.changes_since(
                db, auth=auth, workspace_id=a.workspace_id, cursor=a.cursor
            ),
        ),
        *_writing_tools(sessions, max_note_bytes),
    ]
    with _sdk_leaves_logging_alone():
        return MCPServer(
            "ambient-notes",
            instructions=INSTRUCTIONS,
            version=VERSION,
            log_level="WARNING",
            tools=tools,
            middleware=[tools_within_scope, notes_as_resources(sessions)],
        )


def _dump(edits: list) -> list[dict]:
    return [edit.model_dump() for edit in edits]


def _writing_tools(sessions: sessionmaker[Session], max_note_bytes: int) -> list[Tool]:
    """propose_edit and get_proposal (scope propose), create_note and edit_note (write)."""
    return [
        _tool(
            sessions,
            "propose_edit",
            "Propose an edit of a note for the user to apply or discard in their notes page; "
            "it never changes the note by itself. Each 'find' must occur exactly once in the "
            "saved copy (include enough surrounding text); 'append' adds at the end. Leave "
            "out workspaceId and path for the note the user has open. Answers a proposalId "
            "and the diff; call get_proposal later to learn whether the user applied it.",
            args.McpProposeEdit,
            lambda db, auth, a: writing.propose_edit(
                db,
                auth=auth,
                workspace_id=a.workspace_id,
                path=a.path,
                edits=_dump(a.edits),
                summary=a.summary,
                max_bytes=max_note_bytes,
                now=utcnow(),
            ),
            PROPOSES,
        ),
        _tool(
            sessions,
            "get_proposal",
            "The status of a proposal you made: pending, applied (with the note's revision "
            "when the server applied it) or discarded.",
            args.McpGetProposal,
            lambda db, auth, a: writing.get_proposal(db, auth=auth, proposal_id=a.proposal_id),
        ),
        _tool(
            sessions,
            "create_note",
            "Create a new note at a path that is free; an existing note is never "
            "overwritten (the call fails and changes nothing).",
            args.McpCreateNote,
            lambda db, auth, a: writing.create_note(
                db,
                auth=auth,
                workspace_id=a.workspace_id,
                path=a.path,
                text=a.text,
                max_bytes=max_note_bytes,
                now=utcnow(),
            ),
            WRITES,
        ),
        _tool(
            sessions,
            "edit_note",
            "Change a note directly. Pass the sha256 your last read of the note answered as "
            "baseSha256: the edits apply only if the note has not changed since. Each 'find' "
            "must occur exactly once; {heading, append} adds to the end of the section under "
            "that heading line (which must occur exactly once). Any failure changes nothing; "
            "read the note again and retry. Answers the new revision and sha256.",
            args.McpEditNote,
            lambda db, auth, a: writing.edit_note(
                db,
                auth=auth,
                workspace_id=a.workspace_id,
                path=a.path,
                base_sha256=a.base_sha256,
                edits=_dump(a.edits),
                max_bytes=max_note_bytes,
                now=utcnow(),
            ),
            WRITES,
        ),
    ]


@contextmanager
def _sdk_leaves_logging_alone():
    """MCPServer() calls logging.basicConfig; keep the process's own logging as it was."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        # The SDK's info lines can quote what a client sent (a tool argument may be a path).
        logging.getLogger("mcp").setLevel(logging.WARNING)


class McpGuard:
    """Origin and bearer-token checks in front of the SDK's transport, for every request.

    An Origin header that is present and not this app's own gets 403 (DNS rebinding, as
    the MCP transport specification asks); a missing, unknown, expired or revoked token
    gets 401. Neither the token nor the body is ever logged.
    """

    def __init__(
        self,
        manager: StreamableHTTPSessionManager,
        sessions: sessionmaker[Session],
        same_origin: Callable[[Scope], bool],
    ) -> None:
        self.manager = manager
        self.sessions = sessions
        self.same_origin = same_origin

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        if headers.get("origin") is not None and not self.same_origin(scope):
            await JSONResponse({"detail": FOREIGN_ORIGIN}, status_code=403)(scope, receive, send)
            return
        if scope["method"] == "GET":
            # Stateless mode never sends unasked, so the transport's GET stream would stay
            # open with nothing in it (and outlive a revoked token): refuse it, as the
            # transport allows, before any token lookup or rate budget is spent.
            response = JSONResponse(
                {"detail": NO_EVENT_STREAM}, status_code=405, headers={"Allow": "POST, DELETE"}
            )
            await response(scope, receive, send)
            return
        token = _bearer(headers.get("authorization"))
        origin = oauth_urls.origin_of(scope)
        auth = await anyio.to_thread.run_sync(self._authority, token, origin) if token else None
        if auth is None:
            # RFC 9728 §5.1: the hint an OAuth client follows to find how to get a token.
            metadata = oauth_urls.resource_metadata_url(origin)
            response = JSONResponse(
                {"detail": BAD_TOKEN if token else NO_TOKEN},
                status_code=401,
                headers={
                    "WWW-Authenticate": f'Bearer realm="ambient-notes", '
                    f'resource_metadata="{metadata}"'
                },
            )
            await response(scope, receive, send)
            return
        try:  # the same per-user budget as turns and tools (backend.limits.throttle)
            scope["app"].state.throttle.hit_route("mcp", auth.user_id)
        except TooManyRequests as exc:
            response = JSONResponse(
                {"detail": str(exc)}, status_code=429, headers={"Retry-After": str(exc.retry_after)}
            )
            await response(scope, receive, send)
            return
        scope[AUTH_KEY] = auth
        state = scope.get("state")
        if isinstance(state, dict):
            state["user_id"] = auth.user_id  # the request log line names the user, not the token
        await self.manager.handle_request(scope, receive, send)

    def _authority(self, token: str, origin: str) -> Authority | None:
        """A personal token's authority, or an OAuth access token's (SPEC §19): the grant's
        scope and reach, only for the resource it was issued for (this /mcp URL)."""
        with self.sessions() as db:
            if token.startswith(oauth_store.ACCESS_PREFIX):
                return oauth_store.authority_for_access_token(
                    db, token=token, resource=origin + MCP_PATH, now=utcnow()
                )
            return tokens_service.authority_for_token(db, token=token, now=utcnow())


def _bearer(value: str | None) -> str | None:
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def mount_mcp(app: FastAPI, same_origin: Callable[[Scope], bool]) -> StreamableHTTPSessionManager:
    """Add the /mcp route to `app`; run the returned manager's `run()` in the app's lifespan."""
    server = build_mcp(app.state.sessionmaker, app.state.settings.max_note_bytes)
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        max_request_body_size=MAX_REQUEST_BYTES,
        # Host is checked for the whole app and Origin by McpGuard, against the app's own
        # origin (the SDK's fixed allow-list cannot know it behind a proxy).
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    manager = server.session_manager
    guard: Any = McpGuard(manager, app.state.sessionmaker, same_origin)
    app.router.routes.append(Route(MCP_PATH, endpoint=guard, methods=["GET", "POST", "DELETE"]))
    return manager
