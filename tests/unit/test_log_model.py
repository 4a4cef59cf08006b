"""The conversation log is one Tab stop; arrows move through its messages and their links."""

from __future__ import annotations

from app.chat.log_model import move, tab_stop


def test_arrows_move_through_the_stops_and_stop_at_the_ends() -> None:
    assert move(4, 0, "ArrowDown") == 1
    assert move(4, 3, "ArrowDown") == 3
    assert move(4, 2, "ArrowUp") == 1
    assert move(4, 0, "ArrowUp") == 0
    assert move(4, 2, "Home") == 0
    assert move(4, 1, "End") == 3
    assert move(4, -1, "ArrowDown") == 1  # a stop gone meanwhile counts as the first


def test_other_keys_and_an_empty_log_do_nothing() -> None:
    assert move(4, 1, "Tab") is None
    assert move(4, 1, "ArrowRight") is None
    assert move(0, 0, "ArrowDown") is None


def test_the_tab_stop_is_the_last_focused_message_else_the_newest() -> None:
    assert tab_stop(0, None) is None
    assert tab_stop(5, None) == 4
    assert tab_stop(5, 2) == 2
    assert tab_stop(3, 7) == 2  # that message is gone (a new conversation): the newest
