"""Two windows saving one note: no lost update, and the 409 path keeps both texts reachable."""

from __future__ import annotations

from conftest import sign_in
from fastapi.testclient import TestClient

URL = "/api/workspaces/team/documents/shared/plan.md"
BASE = "# Plan\n\nbase\n"
WINNER = "# Plan\n\nbase\nalice's line\n"
LOSER = "# Plan\n\nbase\nbob's line\n"


def _open(client: TestClient) -> tuple[str, str]:
    """What a window does when it opens the note: the text and its ETag."""
    r = client.get(URL)
    assert r.status_code == 200
    return r.text, r.headers["etag"]


def test_stale_save_is_refused_and_the_winner_survives(app, alice_client, bob_client):
    assert alice_client.put(URL, content=BASE, headers={"If-None-Match": "*"}).status_code == 201
    # Two windows (alice's and bob's, both members of team) open revision 1.
    _, etag_a = _open(alice_client)
    _, etag_b = _open(bob_client)
    assert etag_a == etag_b == '"1"'

    first = alice_client.put(URL, content=WINNER, headers={"If-Match": etag_a})
    assert first.status_code == 200 and first.json()["revision"] == 2

    stale = bob_client.put(URL, content=LOSER, headers={"If-Match": etag_b})
    assert stale.status_code == 409
    assert set(stale.json()) == {"detail"} and "bob's line" not in stale.text

    # The stale window never wrote over the winner, for either user.
    for client in (alice_client, bob_client):
        text, etag = _open(client)
        assert text == WINNER and etag == '"2"'


def test_the_loser_can_save_a_copy_and_both_texts_stay_reachable(app, alice_client, bob_client):
    alice_client.put(URL, content=BASE)
    alice_client.put(URL, content=WINNER, headers={"If-Match": '"1"'})
    assert bob_client.put(URL, content=LOSER, headers={"If-Match": '"1"'}).status_code == 409

    # "Save as a copy": create-only at a new path, so it can never overwrite anything either.
    copy = "/api/workspaces/team/documents/shared/plan (conflicted copy).md"
    saved = bob_client.put(copy, content=LOSER, headers={"If-None-Match": "*"})
    assert saved.status_code == 201
    # A second attempt to claim the same copy name does not overwrite the first copy.
    again = bob_client.put(copy, content="other", headers={"If-None-Match": "*"})
    assert again.status_code == 412

    assert alice_client.get(URL).text == WINNER
    assert alice_client.get(copy).text == LOSER
    listing = {d["path"]: d for d in alice_client.get("/api/workspaces/team/documents").json()}
    assert set(listing) == {"shared/plan.md", "shared/plan (conflicted copy).md"}


def test_the_loser_can_merge_onto_the_new_revision(app, alice_client, bob_client):
    alice_client.put(URL, content=BASE)
    alice_client.put(URL, content=WINNER, headers={"If-Match": '"1"'})
    assert bob_client.put(URL, content=LOSER, headers={"If-Match": '"1"'}).status_code == 409
    text, etag = _open(bob_client)  # re-read the winner, then save a merge on top of it
    merged = text + "bob's line\n"
    assert bob_client.put(URL, content=merged, headers={"If-Match": etag}).status_code == 200
    assert alice_client.get(URL).text == merged  # both lines: nothing was lost


def test_two_windows_of_one_user_alternate_without_losing_a_save(app, alice_client):
    """Two tabs of the same user, each saving with the revision it last saw, ten rounds."""
    tab_a, tab_b = alice_client, sign_in(TestClient(app), "alice")
    tab_a.put(URL, content="0")
    seen = {"a": '"1"', "b": '"1"'}
    lines: list[str] = []
    for i in range(10):
        name, tab = ("a", tab_a) if i % 2 == 0 else ("b", tab_b)
        text, etag = _open(tab)
        if etag != seen[name]:
            # The other tab saved since: a blind save with the old revision must be refused.
            blind = tab.put(URL, content=f"blind {i}", headers={"If-Match": seen[name]})
            assert blind.status_code == 409
        line = f"{name}{i}"
        r = tab.put(URL, content=text + "\n" + line, headers={"If-Match": etag})
        assert r.status_code == 200, r.text
        seen[name] = f'"{r.json()["revision"]}"'
        lines.append(line)
    final = tab_a.get(URL).text.split("\n")
    assert final == ["0", *lines]  # every save of both tabs is in the text, in order
