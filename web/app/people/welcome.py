"""What the page shows instead of the sign-in form or the main window: the first run's setup
form, and the form of an invitation link (`/#invite=SECRET`)."""

from __future__ import annotations

from js import document, window

from app.api import _forget_prefetched as forget_prefetched
from app.api_model import ApiError, describe
from app.dom import h
from app.people.people_model import (
    PROVIDERS_URL,
    SETUP_URL,
    find_workspace,
    invitation_url,
    invite_secret,
    sign_in_links,
    signin_error,
    workspace_label,
)


async def add_provider_links(api, form, alert) -> None:
    """Sign-in with the server's identity providers (`GET /api/session/providers`): a link per
    provider under the form (a full navigation: the provider's pages are not this page's),
    and the words for a sign-in that came back refused (`#signin-error=`)."""
    problem = signin_error(str(window.location.hash))
    if problem:
        alert.textContent = problem
        location = window.location
        window.history.replaceState(None, "", f"{location.pathname}{location.search}")
    try:
        reply = await api.call("GET", PROVIDERS_URL)
    except Exception:  # noqa: BLE001 - no answer: the password form alone
        return
    if reply.status != 200:
        return
    for label, url in sign_in_links(reply.json()):
        link = {"class": "button provider", "href": url, "data-testid": "login-provider"}
        form.append(h("a", link, label))


async def setup_needed(api) -> bool:
    """`GET /api/setup` says `{"needed": true}` on a server with no user yet."""
    try:
        reply = await api.call("GET", SETUP_URL)
    except Exception:  # noqa: BLE001 - no answer: the ordinary sign-in form
        return False
    if reply.status != 200:
        return False
    return bool((reply.json() or {}).get("needed"))


def current_invite() -> str | None:
    return invite_secret(str(window.location.hash))


def clear_invite() -> None:
    """Drop `#invite=…` from the address without a reload or a history entry."""
    location = window.location
    window.history.replaceState(None, "", f"{location.pathname}{location.search}")


def _input(id_: str, *, password: bool = False, autocomplete: str = "") -> object:
    return h(
        "input",
        {
            "id": id_,
            "name": id_,
            "data-testid": id_,
            "required": True,
            "type": "password" if password else None,
            "autocomplete": autocomplete or None,
            "autocapitalize": "none",
        },
    )


def _card(title_id: str, title: str, *children):
    return h(
        "main",
        {"class": "signin"},
        h(
            "form",
            {"class": "signin-form", "aria-labelledby": title_id},
            h("h1", {"id": title_id}, title),
            *children,
        ),
    )


def show_setup(shell, then) -> None:
    """The first administrator's account: username, password and the code from the log."""
    ctx = shell.ctx
    user = _input("setup-username", autocomplete="username")
    password = _input("setup-password", password=True, autocomplete="new-password")
    code = _input("setup-code", autocomplete="one-time-code")
    submit = h("button", {"type": "submit", "data-testid": "setup-submit"}, "Create account")
    alert = h("p", {"class": "problem", "role": "alert", "data-testid": "setup-problem"})
    main = _card(
        "setup-title",
        "Set up Ambient Notes",
        h(
            "p",
            {"class": "hint"},
            "No one has an account here yet. Create the first one: it is an administrator. "
            "The setup code is printed in the server's log.",
        ),
        h("label", {"for": "setup-username"}, "Username"),
        user,
        h("label", {"for": "setup-password"}, "Password (at least 10 characters)"),
        password,
        h("label", {"for": "setup-code"}, "Setup code"),
        code,
        submit,
        alert,
    )

    async def on_submit(event) -> None:
        submit.disabled = True
        alert.textContent = ""
        body = {
            "username": user.value.strip(),
            "password": password.value,
            "code": code.value.strip(),
        }
        try:
            forget_prefetched()  # what prefetch.js fetched signed out is stale once signed in
            await ctx.api.ok("POST", SETUP_URL, data=body)
            ctx.user = await ctx.api.session()
        except ApiError as exc:
            submit.disabled = False
            if exc.status == 404:  # someone else finished the setup meanwhile
                shell.show_sign_in(then, "The setup is already done: sign in.")
                return
            alert.textContent = (
                "That setup code is not right." if exc.status == 403 else describe(exc)
            )
            return
        except Exception as exc:  # noqa: BLE001 - shown under the form
            submit.disabled = False
            alert.textContent = describe(exc)
            return
        await then()

    shell.listeners.on(main.querySelector("form"), "submit", on_submit, prevent=True)
    shell.root.replaceChildren(main)
    user.focus()


async def lookup(api, secret: str) -> dict:
    """The invitation's workspace, role and inviter; ApiError (404: one message) otherwise."""
    return (await api.ok("GET", invitation_url(secret))).json() or {}


def show_invite(shell, secret: str, info: dict, *, signed_in: bool, then, sign_in) -> None:
    """The invitation's form: join (signed in) or create an account and join (signed out).

    `then(ws)` continues into the main window at workspace `ws` (an id, or None when it cannot
    be told); `sign_in()` shows the sign-in form for someone who already has an account.
    """
    ctx = shell.ctx
    name = workspace_label(info.get("workspace"))
    fields: list = []
    user = password = None
    if not signed_in:
        user = _input("invite-username", autocomplete="username")
        password = _input("invite-password", password=True, autocomplete="new-password")
        fields = [
            h("label", {"for": "invite-username"}, "Choose a username"),
            user,
            h("label", {"for": "invite-password"}, "Choose a password (at least 10 characters)"),
            password,
        ]
    accept = h(
        "button",
        {"type": "submit", "data-testid": "invite-accept"},
        "Join" if signed_in else "Create account and join",
    )
    alert = h("p", {"class": "problem", "role": "alert", "data-testid": "invite-problem"})
    other = h(
        "button",
        {"type": "button", "class": "link", "data-testid": "invite-other"},
        "Not now" if signed_in else "I already have an account: sign in",
    )
    inviter = info.get("invitedBy") or "Someone"
    main = _card(
        "invite-title",
        "You are invited",
        h(
            "p",
            {},
            f"{inviter} invites you to the workspace ",
            h("strong", {"data-testid": "invite-workspace", "text": name}),
            f" as {'an' if str(info.get('role', ''))[:1] in 'aeiou' else 'a'} "
            f"{info.get('role', 'member')}.",
        ),
        *fields,
        accept,
        other,
        alert,
    )
    form = main.querySelector("form")

    async def on_accept(event) -> None:
        accept.disabled = True
        alert.textContent = ""
        body = None if signed_in else {"username": user.value.strip(), "password": password.value}
        try:
            forget_prefetched()  # signed in by the answer: what was fetched signed out is stale
            reply = await ctx.api.ok("POST", invitation_url(secret, "accept"), data=body)
            answer = reply.json() if reply.text else None
            if not signed_in:
                ctx.user = await ctx.api.session()
            await ctx.keep_fresh_workspaces()
        except Exception as exc:  # noqa: BLE001 - shown under the form
            accept.disabled = False
            alert.textContent = describe(exc)
            return
        clear_invite()
        named = [answer.get("workspaceId") if isinstance(answer, dict) else None]
        named += [info.get("workspaceId"), info.get("workspace")]
        found = [find_workspace(ctx.workspaces, value) for value in named]
        await then(next((ws for ws in found if ws), None))

    async def on_other(event) -> None:
        if signed_in:
            clear_invite()
            await then(None)
        else:
            sign_in()

    shell.listeners.on(form, "submit", on_accept, prevent=True)
    shell.listeners.on(other, "click", on_other)
    shell.root.replaceChildren(main)
    (user or accept).focus()
    document.title = "Invitation · Ambient Notes"
