"""A popped-out window: one frame, signed in through the same cookie, with its own store."""

from __future__ import annotations

import json

from js import document, window
from pyscript.js_modules import editor

from ambient.contract import INBOX
from app.agents.agent_proposals import AgentProposals
from app.api_model import describe
from app.dom import h
from app.frames.frameset import Frameset
from app.notes.quick_open import QuickOpen

SCOPE = {
    INBOX: "The main window's assistant no longer calls this note “this note”.",
    "assistant": "This assistant calls a note open in this window “this note”; it does not "
    "see the main window's notes. Open one here with Open a note (Ctrl+O).",
}

RETURN_MESSAGE = "ana-return"  # what a pop-out posts to its main window to come back


async def enter_popout(ctx, shell, request: dict[str, str]) -> None:
    """Show the frame named by the window's query; the ready flag follows in boot."""
    await editor.load()  # CodeMirror: in the HTTP cache already, from the main window
    shell._reset()
    await ctx.keep_fresh_workspaces()
    ws = request["ws"]
    names = {w["id"]: w.get("name") or w["id"] for w in ctx.workspaces}
    who = (ctx.user or {}).get("username") or ""
    back = h(
        "button",
        {
            "type": "button",
            "data-testid": "popout-return",
            "title": "Close this window and show the frame in the main window again",
        },
        "Return to main window",
    )
    # The quick switcher works here too: a pop-out with no note can open one.
    opener = h(
        "button",
        {
            "type": "button",
            "data-testid": "popout-open-note",
            "aria-keyshortcuts": "Control+O",
            "title": "Open a note (Ctrl+O)",
        },
        "Open a note…",
    )
    header = h(
        "header",
        {"class": "topbar popout-bar"},
        h("h1", {"class": "brand"}, "Ambient Notes"),
        h(
            "p",
            {"class": "popout-note", "data-testid": "popout-origin"},
            f"Popped out of {who + '’s ' if who else 'the '}main window · workspace ",
            h("strong", {"text": names.get(ws, ws)}),
        ),
        h("div", {"class": "popout-actions"}, opener, back),
        h(
            "p",
            {
                "class": "popout-scope",
                "data-testid": "popout-scope",
                "text": SCOPE.get(request["kind"], SCOPE["assistant"]),
            },
        ),
    )
    main = h("main", {"id": "frames", "class": "frameset single", "aria-label": "Frame"})
    proposals = AgentProposals(ctx, shell.listeners)  # SPEC §14: in every window
    shell.root.append(header, shell.banner, proposals.el, main)
    if ws not in names:
        back.remove()
        shell.say(f"You do not have access to the workspace “{ws}”. Close this window.")
        return
    ctx.workspace_id = ws
    try:
        ctx.set_known_paths({d["path"] for d in await ctx.api.documents(ws)})  # for links
    except Exception as exc:  # noqa: BLE001 - links just show unchecked; say why
        shell.say(f"Could not list the notes: {describe(exc)}")
    frameset = ctx.frameset = shell.frameset = Frameset(ctx, main)
    frame = await frameset.open(request["kind"], frame_id=request["frame"] or None)
    if request["kind"] == INBOX and request["path"]:
        await frame.show(path=request["path"], view=request["view"])
        document.title = f"{request['path']} (popped out) — Ambient Notes"
    else:
        document.title = f"{frame.title} (popped out) — Ambient Notes"
    shell.listeners.on(back, "click", lambda event: return_to_main(ctx, frameset))
    shell.quick_open = QuickOpen(ctx, shell.root)
    shell.escape_handlers.append(shell.quick_open.close)
    shell.listeners.on(opener, "click", lambda event: shell.quick_open.show())
    ctx.workspace_changed()


async def return_to_main(ctx, frameset) -> None:
    """Save, hand every frame to the window it came from, and close this one."""
    frames = frameset.frames()
    if not frames:
        return
    opener = window.opener
    if not opener or opener.closed:
        ctx.say("The main window is closed. Open Ambient Notes in a tab; this window can stay.")
        return
    for frame in frames:
        if not await frame.flush():
            ctx.say(
                "This note has changes that are not saved yet; it can go back once it says Saved."
            )
            return
    for frame in frames:
        query = frame.popout_query()
        message = {
            "type": RETURN_MESSAGE,
            "kind": frame.kind,
            "frame": frame.id,
            "ws": query.get("ws") or ctx.workspace_id,
            "path": query.get("path", ""),
            "view": query.get("view", ""),
        }
        opener.postMessage(json.dumps(message), window.location.origin)
    for frame in frames:
        frameset.close(frame)  # the last frame of a pop-out: the window closes


def parse_return(data, origin: str, own_origin: str) -> dict | None:
    """A main window's view of a message: a pop-out's frame coming back, or None."""
    if origin != own_origin or not isinstance(data, str):
        return None
    try:
        message = json.loads(data)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("type") != RETURN_MESSAGE:
        return None
    return message
