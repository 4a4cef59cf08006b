"""web/app/people/people_model: the people room's URLs, words and small decisions (SPEC §17)."""

from __future__ import annotations

from app.people.people_model import (
    ROLES,
    admin_user_url,
    after_delete,
    confirm_matches,
    find_workspace,
    full_url,
    invitation_body,
    invitation_url,
    invitations_url,
    invite_secret,
    member_controls,
    members_url,
    name_of,
    role_change_words,
    role_of,
    session_url,
    short_agent,
    when,
    workspace_label,
)

WORKSPACES = [
    {"id": "personal", "name": "Personal", "role": "owner"},
    {"id": "team", "name": "Team notes", "role": "reader"},
]


def test_the_roles_are_offered_owner_first():
    assert ROLES == ("owner", "editor", "reader")


def test_urls_encode_every_segment():
    assert members_url("team") == "/api/workspaces/team/members"
    assert members_url("team", "bob.b") == "/api/workspaces/team/members/bob.b"
    assert invitations_url("a b") == "/api/workspaces/a%20b/invitations"
    assert invitations_url("team", "7") == "/api/workspaces/team/invitations/7"
    assert invitation_url("s/x") == "/api/invitations/s%2Fx"
    assert invitation_url("abc", "accept") == "/api/invitations/abc/accept"
    assert session_url("12") == "/api/account/sessions/12"
    assert admin_user_url("carol") == "/api/admin/users/carol"


def test_the_invitation_secret_comes_from_the_fragment():
    assert invite_secret("#invite=abc-DEF_1") == "abc-DEF_1"
    assert invite_secret("#x=1&invite=abc") == "abc"
    assert invite_secret("#invite=a%2Bb") == "a+b"
    assert invite_secret("#invite=") is None
    assert invite_secret("") is None
    assert invite_secret("#reinvite=abc") is None


def test_roles_and_names_come_from_the_workspace_list():
    assert role_of(WORKSPACES, "team") == "reader"
    assert role_of(WORKSPACES, "gone") is None
    assert name_of(WORKSPACES, "team") == "Team notes"
    assert name_of(WORKSPACES, "gone") == "gone"


def test_after_a_delete_the_page_goes_to_another_workspace_or_none():
    assert after_delete(WORKSPACES, "personal") == "team"
    assert after_delete(WORKSPACES, "team") == "personal"
    assert after_delete(WORKSPACES[:1], "personal") is None


def test_an_answer_names_its_workspace_by_id_name_or_both():
    assert find_workspace(WORKSPACES, "team") == "team"
    assert find_workspace(WORKSPACES, "Team notes") == "team"
    assert find_workspace(WORKSPACES, {"id": "team", "name": "x"}) == "team"
    assert find_workspace(WORKSPACES, {"name": "Personal"}) == "personal"
    assert find_workspace(WORKSPACES, "nowhere") is None
    assert find_workspace(WORKSPACES, None) is None
    assert workspace_label({"id": "team", "name": "Team notes"}) == "Team notes"
    assert workspace_label("Team notes") == "Team notes"
    assert workspace_label(None) == ""


def test_a_delete_needs_the_exact_name_typed():
    assert confirm_matches("Team notes", "Team notes")
    assert confirm_matches("  Team notes ", "Team notes")
    assert not confirm_matches("team notes", "Team notes")
    assert not confirm_matches("", "")


def test_member_rows_offer_what_the_role_allows():
    alice, bob = {"username": "alice"}, {"username": "bob"}
    assert member_controls("owner", "alice", bob) == {"role_enabled": True, "remove": "Remove"}
    assert member_controls("owner", "alice", alice) == {"role_enabled": True, "remove": "Leave"}
    assert member_controls("editor", "bob", alice) == {"role_enabled": False, "remove": None}
    assert member_controls("reader", "bob", bob) == {"role_enabled": False, "remove": "Leave"}


def test_an_invitation_body_keeps_its_numbers_within_bounds():
    assert invitation_body("reader", "3", "5") == {
        "role": "reader",
        "expiresInDays": 3,
        "maxUses": 5,
    }
    assert invitation_body("editor", "30", "0") == {
        "role": "editor",
        "expiresInDays": 7,
        "maxUses": 1,
    }
    assert invitation_body("boss", "", "many") == {
        "role": "editor",
        "expiresInDays": 7,
        "maxUses": 1,
    }


def test_the_invitation_link_is_made_absolute():
    origin = "https://notes.example.test"
    assert full_url("/#invite=abc", origin) == "https://notes.example.test/#invite=abc"
    assert full_url("http://h.test/#invite=abc", origin) == "http://h.test/#invite=abc"


def test_a_user_agent_in_a_few_words():
    chrome = (
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Safari/537.36"
    )
    firefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0"
    safari = (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 "
        "(KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
    )
    assert short_agent(chrome) == "Chrome on Linux"
    assert short_agent(firefox) == "Firefox on Windows"
    assert short_agent(safari) == "Safari on iPhone"
    assert short_agent("python-httpx/0.27") == "python-httpx/0.27"
    assert short_agent("x" * 60) == "x" * 39 + "…"
    assert short_agent(None) == "Unknown browser"


def test_times_and_words():
    assert when("2026-11-30T12:00:00.123Z") == "2026-11-30 12:00 UTC"
    assert when(None) == ""
    assert role_change_words("bob", "reader") == "bob is now a reader."
    assert role_change_words("bob", "owner") == "bob is now an owner."
    assert role_change_words("bob", "editor") == "bob is now an editor."


def test_a_sign_in_error_from_the_provider_is_said_in_words():
    from app.people.people_model import SIGNIN_ERRORS, signin_error

    assert signin_error("#signin-error=domain") == SIGNIN_ERRORS["domain"]
    assert signin_error("#invite=x&signin-error=denied") == SIGNIN_ERRORS["denied"]
    assert signin_error("#signin-error=whatever").startswith("The sign-in did not complete")
    assert signin_error("") is None and signin_error("#invite=abc") is None
    assert signin_error("#signin-error=<script>") is None


def test_only_this_servers_provider_links_become_buttons():
    from app.people.people_model import sign_in_links

    reply = {
        "providers": [
            {"id": "oidc", "name": "Example SSO", "url": "/api/oidc/login"},
            {"id": "x", "name": "Elsewhere", "url": "https://evil.example/login"},
            {"id": "y", "name": "Protocol-relative", "url": "//evil.example/login"},
            {"id": "z", "name": " ", "url": "/api/oidc/login"},
            "junk",
        ]
    }
    assert sign_in_links(reply) == [
        ("Sign in with Example SSO", "/api/oidc/login"),
        ("Sign in with single sign-on", "/api/oidc/login"),
    ]
    assert sign_in_links({"providers": []}) == [] and sign_in_links(None) == []
