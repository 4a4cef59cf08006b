"""A new workspace: the `workspace-new` button beside the switcher and its small form."""

from __future__ import annotations

from app.api_model import describe
from app.dom import h
from app.people.dialog import Dialog, field
from app.people.people_model import WORKSPACES_URL


def new_workspace_button(ctx, shell):
    """The button and its dialog; on success the shell lists the workspaces and switches."""
    form = NewWorkspace(ctx, shell)
    button = h(
        "button",
        {
            "type": "button",
            "class": "small",
            "data-testid": "workspace-new",
            "aria-haspopup": "dialog",
            "title": "Create a workspace",
        },
        "New",
    )
    shell.listeners.on(button, "click", lambda event: form.open())
    return h("span", {"class": "people-opener"}, button, form.frame.dialog)


class NewWorkspace:
    def __init__(self, ctx, shell) -> None:
        self.ctx, self.shell = ctx, shell
        self.frame = frame = Dialog(shell, key="workspace-new-dialog", title="New workspace")
        self.name = h(
            "input",
            {
                "id": "workspace-name-input",
                "data-testid": "workspace-name-input",
                "required": True,
                "maxlength": "100",
                "autocomplete": "off",
            },
        )
        self.create = h("button", {"type": "submit", "data-testid": "workspace-create"}, "Create")
        form = h(
            "form",
            {"class": "people-form", "aria-labelledby": frame.title_id},
            field("Name", self.name, "You become its owner; invite others from Members."),
            self.create,
        )
        frame.body.append(form)
        frame.listeners.on(form, "submit", self._on_create, prevent=True)

    def open(self) -> None:
        self.frame.show()
        self.name.value = ""
        self.name.focus()

    async def _on_create(self, event) -> None:
        name = self.name.value.strip()
        if not name:
            self.frame.say("Give the workspace a name.")
            self.name.focus()
            return
        self.create.disabled = True
        try:
            created = (await self.ctx.api.ok("POST", WORKSPACES_URL, data={"name": name})).json()
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            self.frame.say(f"Could not create the workspace: {describe(exc)}")
            return
        finally:
            self.create.disabled = False
        self.frame.close()
        await self.shell.workspaces_changed(created["id"])
