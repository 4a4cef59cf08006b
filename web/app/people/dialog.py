"""A modal `<dialog>` with a title, a ✕ button and a status line; Escape closes it."""

from __future__ import annotations

from app.dom import h


class Dialog:
    """The frame every dialog of the people room shares; `body` holds its own content."""

    def __init__(self, shell, *, key: str, title: str) -> None:
        self.shell = shell
        self.listeners = shell.listeners
        self.title_id = f"{key}-title"
        self.status = h(
            "p",
            {"class": "people-status", "role": "status", "data-testid": f"{key}-status"},
        )
        self.close_button = h(
            "button",
            {
                "type": "button",
                "class": "icon",
                "data-testid": f"{key}-close",
                "aria-label": "Close",
            },
            "✕",
        )
        self.heading = h("h2", {"id": self.title_id}, title)
        self.body = h("div", {"class": "people-body"})
        self.dialog = h(
            "dialog",
            {"class": "people-dialog", "aria-labelledby": self.title_id, "data-testid": key},
            h("div", {"class": "people-head"}, self.heading, self.close_button),
            self.body,
            self.status,
        )
        self.listeners.on(self.close_button, "click", lambda event: self.close())
        shell.escape_handlers.append(self.close)

    def say(self, text: str) -> None:
        self.status.textContent = text

    def show(self) -> None:
        if not self.dialog.open:
            self.dialog.showModal()
        self.say("")

    def close(self) -> bool:
        """Close it (Escape and ✕); True if it was open."""
        was_open = bool(self.dialog.open)
        if was_open:
            self.dialog.close()
        return was_open


def opener(shell, dialog: Dialog, test_id: str, label: str, on_open, title: str = ""):
    """A top-bar button opening `dialog` (through `on_open`), wrapped with the dialog itself."""
    button = h(
        "button",
        {
            "type": "button",
            "data-testid": test_id,
            "aria-haspopup": "dialog",
            "title": title or label,
        },
        label,
    )
    shell.listeners.on(button, "click", lambda event: on_open())
    return h("span", {"class": "people-opener"}, button, dialog.dialog)


def field(label: str, control, hint: str = ""):
    """A label and its control (by id), as one grid row of a form."""
    return h(
        "div",
        {"class": "people-field"},
        h("label", {"for": control.id}, label),
        control,
        h("p", {"class": "hint", "text": hint}) if hint else None,
    )
