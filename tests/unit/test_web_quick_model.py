"""The quick switcher's fuzzy match over note paths."""

from __future__ import annotations

from app.notes.quick_model import move, rank, score

PATHS = [
    "welcome.md",
    "todo.md",
    "projects/roadmap.md",
    "projects/plan.md",
    "meetings/2024-roadmap-review.md",
    "日記/今日のメモ.md",
    "archive/old/road trip.md",
]


def test_subsequence_case_insensitive_or_nothing() -> None:
    assert score("RDMP", "projects/roadmap.md") is not None
    assert score("pmr", "projects/roadmap.md") is None  # order matters
    assert score("xyz", "projects/roadmap.md") is None
    assert score("今日", "日記/今日のメモ.md") is not None


def test_the_name_beats_folders_and_consecutive_letters_win() -> None:
    assert rank("roadmap", PATHS)[:2] == ["projects/roadmap.md", "meetings/2024-roadmap-review.md"]
    assert rank("plan", PATHS)[0] == "projects/plan.md"
    # two word starts (road-, review) beat a letter inside "projects"
    assert rank("rr", PATHS)[0] == "meetings/2024-roadmap-review.md"
    assert rank("todo", PATHS) == ["todo.md"]
    assert rank("road trip", PATHS)[0] == "archive/old/road trip.md"


def test_empty_query_lists_recent_first_then_a_to_z() -> None:
    assert rank("", PATHS, recent=["todo.md", "gone.md"])[:3] == [
        "todo.md",
        "archive/old/road trip.md",
        "meetings/2024-roadmap-review.md",
    ]
    assert len(rank("", PATHS, limit=3)) == 3


def test_arrows_wrap() -> None:
    assert move(0, 1, 3) == 1
    assert move(2, 1, 3) == 0
    assert move(0, -1, 3) == 2
    assert move(-1, 1, 3) == 0
    assert move(0, 1, 0) == -1
