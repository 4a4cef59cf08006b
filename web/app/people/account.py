"""The Account dialog: change the password, see where one is signed in, end those sign-ins."""

from __future__ import annotations

from app.api_model import ApiError, describe
from app.dom import column_heads, h
from app.latest_model import Latest
from app.people.dialog import Dialog, field, opener
from app.people.people_model import (
    ACCOUNT_PASSWORD_URL,
    ACCOUNT_SESSIONS_URL,
    session_url,
    short_agent,
    when,
)


def account_button(ctx, shell):
    panel = AccountDialog(ctx, shell)
    return opener(shell, panel.frame, "account-open", "Account", panel.open, "Your account")


class AccountDialog:
    def __init__(self, ctx, shell) -> None:
        self.ctx = ctx
        self._reads = Latest()  # moved by each read: only the latest one's answer is drawn
        self.frame = frame = Dialog(shell, key="account-dialog", title="Your account")
        listeners = frame.listeners
        self.current = h(
            "input",
            {
                "id": "password-current",
                "type": "password",
                "required": True,
                "autocomplete": "current-password",
                "data-testid": "password-current",
            },
        )
        self.new = h(
            "input",
            {
                "id": "password-new",
                "type": "password",
                "required": True,
                "autocomplete": "new-password",
                "data-testid": "password-new",
            },
        )
        self.save = h(
            "button", {"type": "submit", "data-testid": "password-save"}, "Change password"
        )
        self.password_note = h(
            "p", {"class": "people-note", "role": "alert", "data-testid": "password-status"}
        )
        form = h(
            "form",
            {"class": "people-form", "aria-labelledby": "password-title"},
            h("h3", {"id": "password-title"}, "Change your password"),
            field("Current password", self.current),
            field(
                "New password",
                self.new,
                "At least 10 characters, not your username. Your other sign-ins end.",
            ),
            self.save,
            self.password_note,
        )
        self.rows = h("tbody", {"data-testid": "session-list"})
        self.end_others = h(
            "button",
            {"type": "button", "class": "danger", "data-testid": "sessions-end-others"},
            "Sign out everywhere else",
        )
        frame.body.append(
            form,
            h("h3", {}, "Where you are signed in"),
            h(
                "table",
                {"class": "people-table"},
                h("caption", {"class": "visually-hidden"}, "Your sign-ins"),
                h(
                    "thead",
                    {},
                    h(
                        "tr",
                        {},
                        *column_heads("Browser", "Signed in", "Last seen", actions="Actions"),
                    ),
                ),
                self.rows,
            ),
            self.end_others,
        )
        listeners.on(form, "submit", self._on_password, prevent=True)
        listeners.on(self.rows, "click", self._on_rows)
        listeners.on(self.end_others, "click", self._on_end_others)

    async def open(self) -> None:
        self.frame.show()
        self.password_note.textContent = ""
        self.current.focus()
        await self._load()

    async def _load(self) -> None:
        latest = self._reads.start()
        try:
            answer = (await self.ctx.api.ok("GET", ACCOUNT_SESSIONS_URL)).json() or {}
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            if latest():
                self.frame.say(f"Could not list your sign-ins: {describe(exc)}")
            return
        if not latest():  # read again (after ending a sign-in) meanwhile
            return
        rows = []
        for entry in answer.get("sessions", []):
            current = bool(entry.get("current"))
            browser = short_agent(entry.get("userAgent"))
            end = (
                h("span", {"class": "hint"}, "this device")
                if current
                else h(
                    "button",
                    {
                        "type": "button",
                        "class": "small danger",
                        "data-testid": "session-end",
                        "data-session-id": str(entry["id"]),
                        "aria-label": f"End the sign-in on {browser}",
                    },
                    "End",
                )
            )
            rows.append(
                h(
                    "tr",
                    {
                        "data-testid": "session-row",
                        "data-current": "true" if current else "false",
                    },
                    h("td", {"text": browser, "title": entry.get("userAgent") or ""}),
                    h("td", {"text": when(entry.get("createdAt"))}),
                    h("td", {"text": when(entry.get("lastSeenAt"))}),
                    h("td", {}, end),
                )
            )
        self.rows.replaceChildren(*rows)
        self.end_others.disabled = len(rows) <= 1

    async def _on_password(self, event) -> None:
        current, new = self.current.value, self.new.value
        if not current or not new:
            self.password_note.textContent = "Fill in your current and your new password."
            return
        self.save.disabled = True
        try:
            await self.ctx.api.ok(
                "PUT", ACCOUNT_PASSWORD_URL, data={"current": current, "new": new}
            )
        except ApiError as exc:
            self.password_note.textContent = (
                "Your current password is not right." if exc.status == 403 else describe(exc)
            )
            (self.current if exc.status == 403 else self.new).focus()
            return
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            self.password_note.textContent = describe(exc)
            return
        finally:
            self.save.disabled = False
        self.current.value = ""
        self.new.value = ""
        self.password_note.textContent = "Your password is changed. Your other sign-ins have ended."
        await self._load()

    async def _on_rows(self, event) -> None:
        button = event.target.closest("[data-testid=session-end]")
        if not button:
            return
        button.disabled = True
        try:
            await self.ctx.api.ok("DELETE", session_url(button.dataset.sessionId))
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            button.disabled = False
            self.frame.say(f"Could not end that sign-in: {describe(exc)}")
            return
        self.frame.say("That sign-in has ended.")
        await self._load()

    async def _on_end_others(self, event) -> None:
        self.end_others.disabled = True
        try:
            await self.ctx.api.ok("DELETE", ACCOUNT_SESSIONS_URL)
        except Exception as exc:  # noqa: BLE001 - said in the dialog
            self.end_others.disabled = False
            self.frame.say(f"Could not end your other sign-ins: {describe(exc)}")
            return
        self.frame.say("You are signed out everywhere else.")
        await self._load()
