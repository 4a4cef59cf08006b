"""Who made a change (SPEC §13 `source`, §15 history): passed to every document write."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["page", "assistant", "agent", "import"]
# edit: a save; create: the first save; restore: a revision saved again (§15); move, delete;
# links: a note's links rewritten because a note they lead to moved (§18).
Action = Literal["edit", "create", "restore", "move", "delete", "links"]
DEMO = "demo"  # the `name` of the demo seed's source (kind page, no user)


@dataclass(frozen=True, slots=True)
class Source:
    """`kind` page (the signed-in user through the documents API), assistant (an applied
    proposal), agent (a personal access token; `name` is the token's name) or import (a zip
    imported, SPEC §18; `name` is the zip's file name); `user_id` is the user on whose behalf
    it happened (None for the demo seed: kind page, `name` "demo", see `demo`)."""

    kind: Kind
    user_id: int | None
    name: str | None = None
    action: Action = "edit"

    @classmethod
    def page(cls, user_id: int | None, *, action: Action = "edit") -> Source:
        return cls("page", user_id, None, action)

    @classmethod
    def demo(cls) -> Source:
        """The demo seed's notes (`serve.py --demo`): no user made them, and history says
        the demo put them there as samples. Kind page (SPEC §13's kinds), `name` "demo"."""
        return cls("page", None, DEMO, "create")

    @classmethod
    def assistant(cls, user_id: int) -> Source:
        return cls("assistant", user_id, None, "edit")

    @classmethod
    def agent(cls, user_id: int, *, name: str) -> Source:
        return cls("agent", user_id, name, "edit")

    @classmethod
    def imported(cls, user_id: int | None, name: str) -> Source:
        return cls("import", user_id, name, "create")

    def as_action(self, action: Action) -> Source:
        return Source(self.kind, self.user_id, self.name, action)

    def public(self) -> dict[str, str | None]:
        """The `{"kind", "name"}` object of the event stream and the revision list."""
        return {"kind": self.kind, "name": self.name}
