"""A frame: a titled <section> in the frameset with pop-out and close buttons."""

from __future__ import annotations

from app.dom import Listeners, h


class Frame:
    """Base of the Inbox, Assistant and Files frames; subclasses fill `self.body`."""

    kind = ""
    title = ""

    def __init__(self, frameset, frame_id: str) -> None:
        self.frameset = frameset
        self.ctx = frameset.ctx
        self.id = frame_id
        self.listeners = Listeners()
        heading_id = f"{frame_id}-title"
        self.heading = h("h2", {"id": heading_id, "class": "frame-title", "text": self.title})
        popout = None
        if self.ctx.window_role == "main":
            popout = h(
                "button",
                {
                    "type": "button",
                    "class": "icon",
                    "data-testid": "frame-popout",
                    "aria-label": f"Pop out {self.title} frame",
                    "title": "Pop out to a new window",
                },
                "↗",
            )
            self.listeners.on(popout, "click", lambda event: self.frameset.popout(self))
        close = h(
            "button",
            {
                "type": "button",
                "class": "icon",
                "data-testid": "frame-close",
                "aria-label": f"Close {self.title} frame",
                "title": "Close",
            },
            "✕",
        )
        self.listeners.on(close, "click", lambda event: self.frameset.close(self))
        self.popout_button, self.close_button = popout, close
        self.body = h("div", {"class": "frame-body"})
        self.el = h(
            "section",
            {
                "class": f"frame frame-{self.kind}",
                "data-testid": "frame",
                "data-frame-id": frame_id,
                "data-frame-kind": self.kind,
                "data-active": "false",
                "aria-labelledby": heading_id,
                "tabindex": "-1",
            },
            h(
                "header",
                {"class": "frame-bar"},
                self.heading,
                h("div", {"class": "frame-actions"}, popout, close),
            ),
            self.body,
        )
        # Activation (SPEC §2): a pointer-down or focus anywhere inside the frame.
        self.listeners.on(self.el, "pointerdown", lambda event: self.frameset.activate(self))
        self.listeners.on(self.el, "focusin", lambda event: self.frameset.activate(self))

    def set_title(self, text: str) -> None:
        self.heading.textContent = text
        label = text or self.title
        if self.popout_button is not None:
            self.popout_button.setAttribute("aria-label", f"Pop out {label}")
        self.close_button.setAttribute("aria-label", f"Close {label}")

    # -- lifecycle, overridden by kinds ---------------------------------------------------

    async def mount(self) -> None:
        """Fill the body once the section is in the page."""

    def unsaved(self) -> bool:
        return False

    def close_warning(self) -> str | None:
        """Why closing now would lose text that can no longer be saved, or None."""
        return None

    async def flush(self) -> bool:
        return True

    def popout_query(self) -> dict[str, str]:
        """What the pop-out window needs to show this frame again (besides kind and id)."""
        return {}

    def destroy(self) -> None:
        """Leave the page: free listeners; subclasses withdraw runtimes first."""
        self.listeners.clear()
        self.el.remove()
