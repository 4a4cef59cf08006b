"""The Assistant frame: hosts the chat that `app.chat.assistant.mount(container, ctx)` builds."""

from __future__ import annotations

from ambient.contract import ASSISTANT
from app.chat import assistant
from app.dom import h
from app.frame import Frame


class AssistantFrame(Frame):
    """A frame around one chat; the chat itself (and the ambient chip) is app.chat.assistant."""

    kind = ASSISTANT
    title = "Assistant"

    def __init__(self, frameset, frame_id: str) -> None:
        super().__init__(frameset, frame_id)
        self.handle = None
        self.container = h("div", {"class": "assistant-host"})
        self.body.append(self.container)

    async def mount(self) -> None:
        self.handle = assistant.mount(self.container, self.ctx)

    def destroy(self) -> None:
        if self.handle is not None:
            self.handle.destroy()
            self.handle = None
        super().destroy()
