"""The Assistant frame: hosts whatever `app.assistant.mount(container, ctx)` builds."""

from __future__ import annotations

import importlib
import inspect

from app.dom import h
from app.frame import Frame


def _assistant_module():
    try:
        return importlib.import_module("app.assistant")
    except ModuleNotFoundError as exc:
        if exc.name != "app.assistant":
            raise
        return None


class AssistantFrame(Frame):
    """The chat lives in app.assistant (issue 6); until it exists this shows a placeholder."""

    kind = "assistant"
    title = "Assistant"

    def __init__(self, frameset, frame_id: str) -> None:
        super().__init__(frameset, frame_id)
        self.handle = None
        self.container = h("div", {"class": "assistant-host"})
        self.body.append(self.container)

    async def mount(self) -> None:
        module = _assistant_module()
        if module is None:
            self.container.append(h("p", {"class": "empty", "text":
                                          "The assistant is not available in this build yet."}))
            return
        handle = module.mount(self.container, self.ctx)
        self.handle = await handle if inspect.isawaitable(handle) else handle

    def popout_query(self) -> dict[str, str]:
        # The assistant may hand its own state (say, the conversation id) to its new window.
        extra = getattr(self.handle, "popout_params", None)
        return dict(extra()) if callable(extra) else {}

    def destroy(self) -> None:
        if self.handle is not None:
            self.handle.destroy()
            self.handle = None
        super().destroy()
