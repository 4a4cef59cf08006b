"""web/app/agent_proposals_model: which agent proposals a window shows."""

from __future__ import annotations

from app.agents.agent_proposals_model import reconcile, title


def _p(pid: str) -> dict:
    return {
        "proposalId": pid,
        "path": "plan.md",
        "workspaceId": "personal",
        "source": {"kind": "agent", "name": "Claude Code"},
    }


def test_new_pending_proposals_are_added_in_order_and_gone_ones_dropped():
    add, drop = reconcile(["a", "b"], set(), [_p("b"), _p("c"), _p("d")])
    assert [p["proposalId"] for p in add] == ["c", "d"]
    assert drop == ["a"]


def test_a_card_this_window_settled_stays_to_show_its_outcome():
    add, drop = reconcile(["a", "b"], {"a"}, [])
    assert (add, drop) == ([], ["b"])


def test_a_list_read_before_this_window_settled_a_card_does_not_bring_it_back():
    # Applied here, then dismissed: a poll that left before the Apply still lists it pending.
    add, drop = reconcile([], {"a"}, [_p("a"), _p("b")])
    assert ([p["proposalId"] for p in add], drop) == (["b"], [])


def test_a_card_being_applied_is_not_dropped_under_the_user():
    # The server settled it; this window's Apply has not heard back yet.
    add, drop = reconcile(["a", "b"], set(), [], working={"a"})
    assert (add, drop) == ([], ["b"])


def test_malformed_entries_are_ignored():
    add, _ = reconcile([], set(), [{"path": "x"}, {"proposalId": 5}, _p("ok")])
    assert [p["proposalId"] for p in add] == ["ok"]


def test_the_title_names_the_agent_and_the_note():
    assert title(_p("a")) == "Claude Code proposes an edit of plan.md (personal)"
    assert title({"path": "x.md", "workspaceId": "team", "source": {"name": None}}) == (
        "An agent proposes an edit of x.md (team)"
    )
