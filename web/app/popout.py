"""A popped-out window: one frame, signed in through the same cookie, with its own store."""

from __future__ import annotations

from js import document

from app.dom import h
from app.frameset import Frameset


async def enter_popout(ctx, shell, request: dict[str, str]) -> None:
    """Show the frame named by the window's query; the ready flag follows in boot."""
    shell._reset()
    ctx.workspaces = await ctx.api.workspaces()
    ws = request["ws"]
    names = {w["id"]: w.get("name") or w["id"] for w in ctx.workspaces}
    header = h("header", {"class": "topbar popout-bar"},
               h("h1", {"class": "brand"}, "Ambient Notes"),
               h("p", {"class": "popout-note"}, "Popped-out frame · workspace ",
                 h("strong", {"text": names.get(ws, ws)})))
    main = h("main", {"id": "frames", "class": "frameset single", "aria-label": "Frame"})
    shell.root.append(header, shell.message, main)
    if ws not in names:
        shell.say(f"You do not have access to the workspace “{ws}”. Close this window.")
        return
    ctx.workspace_id = ws
    frameset = ctx.frameset = shell.frameset = Frameset(ctx, main)
    frame = await frameset.open(request["kind"], frame_id=request["frame"] or None)
    if request["kind"] == "inbox" and request["path"]:
        await frame.show(path=request["path"], view=request["view"])
        document.title = f"{request['path']} — Ambient Notes"
    else:
        document.title = f"{frame.title} — Ambient Notes"
    ctx.workspace_changed()
