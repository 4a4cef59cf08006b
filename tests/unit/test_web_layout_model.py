"""Frame widths when a splitter moves, by mouse or key, and its value for screen readers."""

from __future__ import annotations

from app.frames.layout_model import MIN_FRAME_PX, flex_of, key_delta, resize, share


def test_a_splitter_moves_width_between_its_two_frames_only() -> None:
    assert resize([400, 400, 300], 0, 50) == [450, 350, 300]
    assert resize([400, 400, 300], 1, -100) == [400, 300, 400]
    assert sum(resize([400, 400, 300], 0, 50)) == 1100


def test_no_frame_gets_narrower_than_the_minimum() -> None:
    assert resize([400, 400], 0, 1000) == [800 - MIN_FRAME_PX, MIN_FRAME_PX]
    assert resize([400, 400], 0, -1000) == [MIN_FRAME_PX, 800 - MIN_FRAME_PX]
    assert resize([300, 300], 0, 10, minimum=250) == [310, 290]


def test_a_pair_too_narrow_for_two_minimums_is_split_evenly() -> None:
    assert resize([300, 100], 0, 50) == [200, 200]


def test_a_splitter_that_is_not_there_changes_nothing() -> None:
    assert resize([400, 400], 1, 50) == [400, 400]
    assert resize([], 0, 50) == []


def test_keys_move_by_steps_and_home_end_go_to_the_limits() -> None:
    widths = [500.0, 500.0]
    assert key_delta("ArrowRight", False, widths, 0) > 0
    assert key_delta("ArrowLeft", False, widths, 0) < 0
    assert abs(key_delta("ArrowLeft", True, widths, 0)) > abs(
        key_delta("ArrowLeft", False, widths, 0)
    )
    assert resize(widths, 0, key_delta("Home", False, widths, 0))[0] == MIN_FRAME_PX
    assert resize(widths, 0, key_delta("End", False, widths, 0))[1] == MIN_FRAME_PX
    assert key_delta("a", False, widths, 0) is None


def test_share_is_the_left_frames_percentage_of_the_pair() -> None:
    assert share([300, 100], 0) == 75
    assert share([300, 100], 5) == 50


def test_flex_grows_by_width_and_shrinks_by_its_basis() -> None:
    assert flex_of(412.34) == "412.3 1 412.3px"
    assert flex_of(0) == "1 1 1px"
