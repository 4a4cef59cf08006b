"""People and workspaces (SPEC §17), the pure part: URLs, words and small decisions."""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from app.api_model import workspace_url

ROLES = ("owner", "editor", "reader")
ROLE_WORDS = {
    "owner": "Owner: manages the workspace, its members and invitations",
    "editor": "Editor: reads and changes notes",
    "reader": "Reader: reads, searches and chats; changes nothing",
}
INVITE_DAYS = (1, 7, 7)  # min, max, default
INVITE_USES = (1, 100, 1)
SETUP_URL = "/api/setup"
ACCOUNT_PASSWORD_URL = "/api/account/password"
ACCOUNT_SESSIONS_URL = "/api/account/sessions"
ADMIN_USERS_URL = "/api/admin/users"
WORKSPACES_URL = "/api/workspaces"
_INVITE = re.compile(r"(?:^|[#&])invite=([^&]+)")


def members_url(ws: str, username: str = "") -> str:
    url = f"{workspace_url(ws)}/members"
    return f"{url}/{quote(username, safe='')}" if username else url


def invitations_url(ws: str, invitation_id: str = "") -> str:
    url = f"{workspace_url(ws)}/invitations"
    return f"{url}/{quote(str(invitation_id), safe='')}" if invitation_id else url


def invitation_url(secret: str, action: str = "") -> str:
    url = f"/api/invitations/{quote(secret, safe='')}"
    return f"{url}/{action}" if action else url


def session_url(session_id: str) -> str:
    return f"{ACCOUNT_SESSIONS_URL}/{quote(str(session_id), safe='')}"


def admin_user_url(username: str) -> str:
    return f"{ADMIN_USERS_URL}/{quote(username, safe='')}"


def invite_secret(fragment: str) -> str | None:
    """`#invite=SECRET` (the page's location hash) → SECRET; None when there is none."""
    match = _INVITE.search(fragment or "")
    if not match:
        return None
    secret = unquote(match.group(1)).strip()
    return secret or None


def is_owner(role: str | None) -> bool:
    return role == "owner"


def role_of(workspaces: list[dict], ws: str | None) -> str | None:
    """The signed-in user's role in `ws`, from `GET /api/workspaces` entries."""
    for entry in workspaces:
        if entry.get("id") == ws:
            return entry.get("role")
    return None


def name_of(workspaces: list[dict], ws: str | None) -> str:
    for entry in workspaces:
        if entry.get("id") == ws:
            return entry.get("name") or entry["id"]
    return ws or ""


def after_delete(workspaces: list[dict], deleted: str) -> str | None:
    """Where the page goes once `deleted` is gone: the first other workspace, or None."""
    for entry in workspaces:
        if entry.get("id") != deleted:
            return entry["id"]
    return None


def find_workspace(workspaces: list[dict], wanted) -> str | None:
    """The id of the workspace an answer names: an id, a name, or `{id, name}`."""
    if isinstance(wanted, dict):
        if wanted.get("id") and any(e.get("id") == wanted["id"] for e in workspaces):
            return wanted["id"]
        wanted = wanted.get("name") or wanted.get("id")
    if not isinstance(wanted, str) or not wanted:
        return None
    for key in ("id", "name"):
        for entry in workspaces:
            if entry.get(key) == wanted:
                return entry["id"]
    return None


def workspace_label(value) -> str:
    """The name an invitation answer gives for its workspace (a name or `{id, name}`)."""
    if isinstance(value, dict):
        return str(value.get("name") or value.get("id") or "")
    return str(value or "")


def confirm_matches(typed: str, name: str) -> bool:
    """Typed confirmation of a delete: the workspace's exact name (outer spaces ignored)."""
    return bool(name) and typed.strip() == name


def member_controls(my_role: str | None, me: str, member: dict) -> dict[str, object]:
    """What a member row offers: its role select enabled, and its remove button's label."""
    owner = is_owner(my_role)
    mine = member.get("username") == me
    return {
        "role_enabled": owner,
        "remove": "Leave" if mine else ("Remove" if owner else None),
    }


def bounded(text: str, bounds: tuple[int, int, int]) -> int:
    """A number field's value held within (min, max); the default when it is not a number."""
    low, high, default = bounds
    try:
        value = int(str(text).strip())
    except ValueError:
        return default
    return max(low, min(high, value))


def invitation_body(role: str, days: str, uses: str) -> dict:
    return {
        "role": role if role in ROLES else "editor",
        "expiresInDays": bounded(days, INVITE_DAYS),
        "maxUses": bounded(uses, INVITE_USES),
    }


def full_url(url: str, origin: str) -> str:
    """The invitation link as the server answered it, made absolute for copying."""
    if url.startswith(("http://", "https://")):
        return url
    return origin.rstrip("/") + "/" + url.lstrip("/")


_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("HeadlessChrome/", "Chrome"),
    ("Chromium/", "Chromium"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def short_agent(user_agent: str | None) -> str:
    """A browser's user agent in a few words: `Firefox on Linux`; unknown ones shortened."""
    text = (user_agent or "").strip()
    if not text:
        return "Unknown browser"
    browser = next((name for mark, name in _BROWSERS if mark in text), "")
    system = next((name for mark, name in _SYSTEMS if mark in text), "")
    if browser and system:
        return f"{browser} on {system}"
    if browser or system:
        return browser or system
    return text if len(text) <= 40 else text[:39] + "…"


def when(value: str | None) -> str:
    """`2026-11-30T12:00:00.123Z` → `2026-11-30 12:00 UTC` (empty for None)."""
    if not value:
        return ""
    return str(value)[:16].replace("T", " ") + " UTC"


def role_change_words(username: str, role: str) -> str:
    article = "an" if role[:1] in "aeiou" else "a"
    return f"{username} is now {article} {role}."


PROVIDERS_URL = "/api/session/providers"
_SIGNIN_ERROR = re.compile(r"(?:^|[#&])signin-error=([a-z]{1,20})(?:&|$)")
# What the server's OpenID Connect callback sends back in `#signin-error=` (docs/oidc.md).
SIGNIN_ERRORS = {
    "off": "Sign-in with the identity provider is not set up on this server.",
    "state": "That sign-in did not start here or took too long. Please try again.",
    "denied": "The sign-in was cancelled at the identity provider.",
    "provider": "The identity provider could not be reached or refused the sign-in. "
    "Please try again later.",
    "token": "The identity provider's answer could not be checked, so you are not signed in.",
    "domain": "Your account at the identity provider may not sign in here (its email address "
    "is not one this server accepts, or it is not verified).",
    "disabled": "This account is disabled. Ask an administrator to enable it.",
    "setup": "This server has no account yet: create the first administrator with the setup "
    "code first.",
    "busy": "Your account could not be created just now. Please try again.",
}


def signin_error(fragment: str) -> str | None:
    """The words for `#signin-error=<code>` in the address, or None when there is none."""
    found = _SIGNIN_ERROR.search(fragment or "")
    if found is None:
        return None
    return SIGNIN_ERRORS.get(found.group(1), "The sign-in did not complete. Please try again.")


def sign_in_links(reply: object) -> list[tuple[str, str]]:
    """(label, same-origin URL) for each provider of `GET /api/session/providers`; anything
    but a relative URL of this server is left out."""
    providers = reply.get("providers") if isinstance(reply, dict) else None
    links = []
    for entry in providers if isinstance(providers, list) else []:
        if not isinstance(entry, dict):
            continue
        url, name = entry.get("url"), entry.get("name")
        if isinstance(url, str) and url.startswith("/") and not url.startswith("//"):
            label = name if isinstance(name, str) and name.strip() else "single sign-on"
            links.append((f"Sign in with {label.strip()}", url))
    return links
