"""The roving-tabindex keyboard both the note tree and the conversation list use."""

from __future__ import annotations

from app.notes.roving_model import after_delete, position, step, tab_stop

IDS = ["c1", "c2", "c3"]


def test_one_row_is_the_tab_stop_the_last_focused_else_the_open_one_else_the_first():
    assert tab_stop(IDS, "c3", "c2") == "c3"
    assert tab_stop(IDS, "gone", "c2") == "c2"  # the focused row was deleted meanwhile
    assert tab_stop(IDS, None, "c2") == "c2"
    assert tab_stop(IDS, None, None) == "c1"
    assert tab_stop(IDS, None, "elsewhere") == "c1"
    assert tab_stop([], "c1", "c1") is None


def test_with_one_preference_the_tab_stop_is_it_while_listed_else_the_first():
    assert tab_stop(IDS, "c2") == "c2"
    assert tab_stop(IDS, "") == "c1"  # the tree's "nothing focused yet"
    assert tab_stop(IDS) == "c1"
    assert tab_stop([], "") is None


def test_arrows_home_and_end_move_and_stop_at_the_ends_other_keys_are_not_theirs():
    assert step(IDS, "c1", "ArrowDown") == "c2"
    assert step(IDS, "c3", "ArrowDown") == "c3"
    assert step(IDS, "c2", "ArrowUp") == "c1"
    assert step(IDS, "c1", "ArrowUp") == "c1"
    assert step(IDS, "c2", "Home") == "c1"
    assert step(IDS, "c1", "End") == "c3"
    assert step(IDS, "gone", "ArrowDown") == "c2"  # an unknown row is the first
    for key in ("Enter", " ", "Tab", "a", "ArrowLeft", "ArrowRight", "Delete", "Escape"):
        assert step(IDS, "c2", key) is None, key
    assert step([], "c1", "ArrowDown") is None


def test_a_row_is_found_where_it_is_and_an_unknown_one_counts_as_the_first():
    assert position(IDS, "c3") == 2
    assert position(IDS, "gone") == 0


def test_after_a_delete_the_keyboard_goes_to_the_next_row_else_the_one_above():
    assert after_delete(IDS, "c1") == "c2"
    assert after_delete(IDS, "c2") == "c3"
    assert after_delete(IDS, "c3") == "c2"
    assert after_delete(["c1"], "c1") is None
    assert after_delete(IDS, "gone") is None
