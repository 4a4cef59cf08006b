"""Your own agents (MCP): the settings panel (sharing switch, tokens and setup).

The panel is a native <dialog> opened from the top bar: the `active-note-sharing` switch,
the MCP address, personal access tokens (create with a name, an expiry, a scope and an
optional workspace and folder; shown once with a copy button; listed with their scope,
reach and when each was last used; revoked), and the ready-to-paste setup for Claude Code,
VS Code and Cursor with this server's address (and the new token once it is created).
The publisher, which runs in every window, is app.agents.publisher.
"""

from __future__ import annotations

from js import navigator, window

from app.agents.agent_setup_model import SCOPES, snippets
from app.agents.agent_setup_model import reach as reach_words
from app.agents.publish_model import SHARING_URL
from app.agents.publisher import start_publisher
from app.api_model import describe
from app.dom import column_heads, h
from app.latest_model import Latest

TOKENS_URL = "/api/tokens"
EXPIRY_DAYS = ((7, "7 days"), (30, "30 days"), (90, "90 days"), (365, "1 year"))
SHARING_LABEL = (
    "Share my active note with my own agents. They see which note I am looking at: its "
    "path, the view, the selection and its size, never its text. The text is read only when "
    "an agent calls a tool with one of my tokens."
)


def panel_button(ctx, shell):
    """The top bar's button that opens the panel (its listeners live with the shell's)."""
    panel = SharingPanel(ctx, shell)
    button = h(
        "button",
        {
            "type": "button",
            "data-testid": "sharing-open",
            "aria-haspopup": "dialog",
            "title": "Your own agents (MCP)",
        },
        "Agents",
    )
    shell.listeners.on(button, "click", lambda event: panel.open())
    shell.escape_handlers.append(panel.close)
    # The dialog lives beside its button, so the shell's reset removes both together.
    return h("span", {"class": "sharing"}, button, panel.dialog)


class SharingPanel:
    """The settings dialog: the sharing switch, the MCP address and personal access tokens."""

    def __init__(self, ctx, shell) -> None:
        self.ctx, self.shell = ctx, shell
        self.listeners = shell.listeners
        self.switch = h(
            "input",
            {
                "type": "checkbox",
                "id": "active-note-sharing",
                "data-testid": "active-note-sharing",
                "role": "switch",
                "aria-checked": "false",
            },
        )
        self.status = h(
            "p", {"class": "sharing-status", "role": "status", "data-testid": "sharing-status"}
        )
        self.name = h(
            "input",
            {
                "id": "token-name",
                "data-testid": "token-name",
                "maxlength": "100",
                "required": True,
                "placeholder": "e.g. Claude Code on my laptop",
            },
        )
        self.expiry = h(
            "select",
            {"id": "token-expiry", "data-testid": "token-expiry"},
            *[
                h("option", {"value": str(days), "text": label, "selected": days == 30})
                for days, label in EXPIRY_DAYS
            ],
        )
        self.scope = h(
            "select",
            {"id": "token-scope", "data-testid": "token-scope"},
            *[
                h("option", {"value": value, "text": label, "selected": value == "read"})
                for value, label in SCOPES
            ],
        )
        self.workspace = h("select", {"id": "token-workspace", "data-testid": "token-workspace"})
        self.folder = h(
            "input",
            {
                "id": "token-folder",
                "data-testid": "token-folder",
                "maxlength": "4096",
                "placeholder": "optional, e.g. projects",
            },
        )
        self.created = h(
            "div", {"class": "token-created", "hidden": True, "data-testid": "token-created"}
        )
        self.address = f"{window.location.origin}/mcp"
        self.setup = h("div", {"class": "agent-setup", "data-testid": "agent-setup"})
        self._draw_setup()
        self.table = h("tbody", {"data-testid": "token-list"})
        self.close_button = h(
            "button",
            {
                "type": "button",
                "data-testid": "sharing-close",
                "class": "icon",
                "aria-label": "Close",
            },
            "✕",
        )
        form = h(
            "form",
            {"class": "token-form", "aria-label": "Create a token"},
            h("label", {"for": "token-name"}, "Name"),
            self.name,
            h("label", {"for": "token-expiry"}, "Expires after"),
            self.expiry,
            h("label", {"for": "token-scope"}, "Allows"),
            self.scope,
            h("label", {"for": "token-workspace"}, "Workspace"),
            self.workspace,
            h("label", {"for": "token-folder"}, "Only the folder"),
            self.folder,
            h("button", {"type": "submit", "data-testid": "token-create"}, "Create token"),
        )
        address = self.address
        self.dialog = h(
            "dialog",
            {
                "class": "sharing-panel",
                "aria-labelledby": "sharing-title",
                "data-testid": "sharing-panel",
            },
            h(
                "div",
                {"class": "sharing-head"},
                h("h2", {"id": "sharing-title"}, "Your own agents (MCP)"),
                self.close_button,
            ),
            h(
                "p",
                {},
                "Agents such as Claude Code, VS Code or Cursor can read your notes through ",
                h("code", {"text": address}),
                " with a personal access token, and, if the token allows, propose edits you "
                "apply here or edit notes directly (see docs/mcp.md).",
            ),
            h(
                "div",
                {"class": "sharing-switch"},
                self.switch,
                h("label", {"for": "active-note-sharing"}, SHARING_LABEL),
            ),
            h("h3", {}, "Personal access tokens"),
            form,
            self.created,
            h(
                "table",
                {"class": "tokens"},
                h("caption", {"class": "visually-hidden"}, "Your tokens"),
                h(
                    "thead",
                    {},
                    h(
                        "tr",
                        {},
                        *column_heads(
                            "Name",
                            "Allows",
                            "Reaches",
                            "Created",
                            "Expires",
                            "Last used",
                            actions="Actions",
                        ),
                    ),
                ),
                self.table,
            ),
            h("h3", {}, "Connect an agent"),
            self.setup,
            self.status,
        )
        self.listeners.on(self.close_button, "click", lambda event: self.close())
        self.listeners.on(self.switch, "change", self._on_switch)
        self.listeners.on(form, "submit", self._on_create, prevent=True)
        self.listeners.on(self.table, "click", self._on_table_click)
        self.listeners.on(self.created, "click", self._on_copy)
        self.listeners.on(self.dialog, "close", lambda event: self._hide_created())
        self._token_text = ""
        self._switch_moves = Latest()
        self._reads = Latest()  # moved by each read: only the latest one's answer is drawn

    def say(self, text: str) -> None:
        self.status.textContent = text

    async def open(self) -> None:
        if not self.dialog.open:
            self.dialog.showModal()
        self.say("")
        await self._load()

    def close(self) -> bool:
        """Close the dialog (Escape and ✕); forget the shown token. True if it was open."""
        was_open = bool(self.dialog.open)
        if was_open:
            self.dialog.close()
        self._hide_created()
        return was_open

    async def _load(self) -> None:
        # A switch moved while this read was on its way wins over what the read says: the read
        # may have been answered before the change was saved.
        unmoved = self._switch_moves.since()
        latest = self._reads.start()
        try:
            sharing = (await self.ctx.api.ok("GET", SHARING_URL)).json()
            tokens = (await self.ctx.api.ok("GET", TOKENS_URL)).json()
        except Exception as exc:  # noqa: BLE001 - said in the panel
            if latest():
                self.say(f"Could not load your settings: {describe(exc)}")
            return
        if not latest():  # read again (after a create or a revoke) meanwhile
            return
        if unmoved():
            self._show_switch(bool(sharing.get("enabled")))
        self._draw_workspaces()
        self._draw_tokens(tokens)

    def _draw_workspaces(self) -> None:
        chosen = self.workspace.value
        options = [("", "All my workspaces")] + [
            (ws["id"], ws.get("name") or ws["id"]) for ws in (self.ctx.workspaces or [])
        ]
        self.workspace.replaceChildren(
            *[
                h("option", {"value": value, "text": label, "selected": value == chosen})
                for value, label in options
            ]
        )

    def _draw_setup(self, token: str | None = None) -> None:
        """The Claude Code command and the VS Code / Cursor JSON, with this address."""
        parts = []
        for test_id, label, text in (
            snippets(self.address, token) if token else snippets(self.address)
        ):
            parts += [
                h("p", {"class": "hint", "text": label}),
                h("pre", {"data-testid": test_id, "text": text}),
            ]
        if not token:
            parts.append(
                h(
                    "p",
                    {"class": "hint", "text": "Create a token: its value replaces ana_pat_… here."},
                )
            )
        self.setup.replaceChildren(*parts)

    def _show_switch(self, enabled: bool) -> None:
        self.switch.checked = enabled
        self.switch.setAttribute("aria-checked", "true" if enabled else "false")

    async def _on_switch(self, event) -> None:
        self._switch_moves.move()
        wanted = bool(self.switch.checked)
        self.switch.disabled = True
        try:
            await self.ctx.api.ok("PUT", SHARING_URL, data={"enabled": wanted})
        except Exception as exc:  # noqa: BLE001 - the switch goes back; the panel says why
            self._show_switch(not wanted)
            self.say(f"Could not change sharing: {describe(exc)}")
            return
        finally:
            self.switch.disabled = False
        self._show_switch(wanted)
        start_publisher(self.ctx).switched(wanted)
        self.say(
            "Sharing is on: your agents can see which note you are looking at."
            if wanted
            else "Sharing is off: your agents no longer see your active note."
        )

    async def _on_create(self, event) -> None:
        name = self.name.value.strip()
        if not name:
            self.say("Give the token a name, such as the agent that will use it.")
            self.name.focus()
            return
        body = {"name": name, "expiresInDays": int(self.expiry.value), "scope": self.scope.value}
        if self.workspace.value:
            body["workspaceId"] = self.workspace.value
        if self.folder.value.strip():
            body["folder"] = self.folder.value.strip()
        try:
            reply = await self.ctx.api.ok("POST", TOKENS_URL, data=body)
        except Exception as exc:  # noqa: BLE001 - said in the panel
            self.say(f"Could not create the token: {describe(exc)}")
            return
        created = reply.json()
        self.name.value = ""
        self.folder.value = ""
        self._show_created(created["name"], created["token"])
        self._draw_setup(created["token"])
        await self._load()

    def _show_created(self, name: str, token: str) -> None:
        self._token_text = token
        value = h(
            "input",
            {
                "readonly": True,
                "id": "token-value",
                "data-testid": "token-value",
                "value": token,
                "aria-describedby": "token-once",
            },
        )
        self.created.replaceChildren(
            h("label", {"for": "token-value"}, f"Token “{name}”"),
            value,
            h("button", {"type": "button", "data-testid": "token-copy"}, "Copy"),
            h(
                "p",
                {"id": "token-once", "class": "hint"},
                "Copy it now: it is shown only this once. Paste it into your agent's settings.",
            ),
        )
        self.created.hidden = False
        value.focus()
        value.select()

    def _hide_created(self) -> None:
        if self._token_text:
            self._draw_setup()
        self._token_text = ""
        self.created.replaceChildren()
        self.created.hidden = True

    async def _on_copy(self, event) -> None:
        if not event.target.closest("[data-testid=token-copy]") or not self._token_text:
            return
        try:
            await navigator.clipboard.writeText(self._token_text)
        except Exception:  # noqa: BLE001 - no clipboard access: let the user copy it by hand
            field = self.created.querySelector("input")
            field.focus()
            field.select()
            self.say("Copying was not allowed here: the token is selected, press Ctrl+C.")
            return
        self.say("Token copied to the clipboard.")

    def _draw_tokens(self, tokens: list[dict]) -> None:
        rows = []
        for token in tokens:
            revoke = h(
                "button",
                {
                    "type": "button",
                    "class": "small danger",
                    "data-testid": "token-revoke",
                    "data-token-id": token["id"],
                    "aria-label": f"Revoke {token['name']}",
                },
                "Revoke",
            )
            rows.append(
                h(
                    "tr",
                    {
                        "data-testid": "token-row",
                        "data-token-id": token["id"],
                        "data-token-kind": token.get("kind", "personal"),
                    },
                    h("td", {"text": _name(token)}),
                    h(
                        "td",
                        {
                            "class": "token-scope",
                            "data-testid": "token-scope-shown",
                            "text": token.get("scope", "read"),
                        },
                    ),
                    h("td", {"data-testid": "token-reach", "text": reach_words(token)}),
                    h("td", {"text": _day(token["createdAt"])}),
                    h("td", {"text": _day(token["expiresAt"]) or "when revoked"}),
                    h(
                        "td",
                        {
                            "data-testid": "token-last-used",
                            "text": _day(token["lastUsedAt"]) or "never",
                        },
                    ),
                    h("td", {}, revoke),
                )
            )
        if not rows:
            rows.append(h("tr", {}, h("td", {"colspan": "7", "class": "hint"}, "No tokens yet.")))
        self.table.replaceChildren(*rows)

    async def _on_table_click(self, event) -> None:
        button = event.target.closest("[data-testid=token-revoke]")
        if not button:
            return
        button.disabled = True
        try:
            await self.ctx.api.ok("DELETE", f"{TOKENS_URL}/{button.dataset.tokenId}")
        except Exception as exc:  # noqa: BLE001 - said in the panel
            button.disabled = False
            self.say(f"Could not revoke the token: {describe(exc)}")
            return
        self.say("Token revoked: agents using it are refused from now on.")
        await self._load()


def _name(token: dict) -> str:
    """A personal token's name, or an OAuth grant's application (SPEC §19)."""
    if token.get("kind") == "oauth":
        return f"{token['name']} (connected app)"
    return token["name"]


def _day(value: str | None) -> str:
    """`2026-11-30T12:00:00.123Z` → `2026-11-30 12:00 UTC` (empty for None)."""
    if not value:
        return ""
    return value[:16].replace("T", " ") + " UTC"
