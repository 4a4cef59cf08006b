"""The note list's folder tree and the names typed for new, renamed and copied notes."""

from __future__ import annotations

import pytest
from app.notes.tree_model import (
    build_tree,
    clean_folder,
    clean_new_path,
    copy_path,
    drop_folder,
    folder_moved_into,
    folder_span,
    moved_into,
    name_span,
    tree_key,
    visible_items,
)


def test_folders_nest_and_sort_before_notes() -> None:
    root = build_tree(
        [
            "welcome.md",
            "projects/roadmap.md",
            "b.md",
            "日記/今日.md",
            "projects/archive/old.md",
            "A.md",
        ]
    )
    assert [f.name for f in root.folders] == ["projects", "日記"]
    assert [n.name for n in root.notes] == ["A.md", "b.md", "welcome.md"]
    projects = root.folders[0]
    assert projects.path == "projects/"
    assert [f.path for f in projects.folders] == ["projects/archive/"]
    assert [n.path for n in projects.folders[0].notes] == ["projects/archive/old.md"]
    assert [n.path for n in projects.notes] == ["projects/roadmap.md"]


def test_empty_listing_is_an_empty_root() -> None:
    root = build_tree([])
    assert root.folders == [] and root.notes == []


@pytest.mark.parametrize(
    ("typed", "path"),
    [
        ("ideas", "ideas.md"),
        ("  projects/plan  ", "projects/plan.md"),
        ("/notes.txt/", "notes.txt"),
        ("日記/明日", "日記/明日.md"),
    ],
)
def test_clean_new_path(typed: str, path: str) -> None:
    assert clean_new_path(typed) == path


@pytest.mark.parametrize("typed", ["", "   ", "a//b", "../x", "a/./b", "a\\b"])
def test_clean_new_path_refuses_bad_names_in_words(typed: str) -> None:
    with pytest.raises(ValueError) as info:
        clean_new_path(typed)
    assert info.value.args[0].endswith(".")


def test_copy_path_keeps_folder_and_extension() -> None:
    assert copy_path("projects/plan.md") == "projects/plan (conflict copy).md"
    assert copy_path("plan.md", 3) == "plan (conflict copy 3).md"
    assert copy_path("README") == "README (conflict copy)"


@pytest.mark.parametrize(
    ("path", "selected"),
    [
        ("projects/plan.md", "plan"),
        ("todo.md", "todo"),
        ("a/b/.hidden", ".hidden"),
        ("notes/README", "README"),
        ("日記/今日のメモ.md", "今日のメモ"),
        ("v1.2/release.notes.md", "release.notes"),
    ],
)
def test_rename_selects_the_name_only(path: str, selected: str) -> None:
    start, end = name_span(path)
    assert path[start:end] == selected


# -- keyboard navigation ------------------------------------------------------------------------


def _items(collapsed=frozenset()):
    root = build_tree(["welcome.md", "todo.md", "projects/roadmap.md", "projects/a/deep.md"])
    return visible_items(root, set(collapsed))


def test_visible_rows_follow_the_drawing_order_and_skip_closed_folders() -> None:
    assert [i.key for i in _items()] == [
        "projects/",
        "projects/a/",
        "projects/a/deep.md",
        "projects/roadmap.md",
        "todo.md",
        "welcome.md",
    ]
    assert [i.key for i in _items({"projects/"})] == ["projects/", "todo.md", "welcome.md"]


def test_arrows_home_and_end_move_between_rows() -> None:
    items = _items()
    assert tree_key(items, "projects/", "ArrowDown").focus == "projects/a/"
    assert tree_key(items, "welcome.md", "ArrowDown").focus == "welcome.md"
    assert tree_key(items, "projects/", "ArrowUp").focus == "projects/"
    assert tree_key(items, "todo.md", "Home").focus == "projects/"
    assert tree_key(items, "todo.md", "End").focus == "welcome.md"


def test_right_opens_then_enters_a_folder_and_left_closes_then_climbs() -> None:
    closed = _items({"projects/"})
    assert tree_key(closed, "projects/", "ArrowRight").action == "expand"
    items = _items()
    assert tree_key(items, "projects/", "ArrowRight").focus == "projects/a/"
    assert tree_key(items, "projects/", "ArrowLeft").action == "collapse"
    assert tree_key(items, "projects/a/deep.md", "ArrowLeft").focus == "projects/a/"
    assert tree_key(items, "todo.md", "ArrowLeft").focus == "todo.md"
    assert tree_key(items, "todo.md", "ArrowRight").action == ""


def test_enter_opens_a_note_or_folds_a_folder_and_keys_reach_the_actions() -> None:
    items = _items()
    assert tree_key(items, "todo.md", "Enter").action == "open"
    assert tree_key(items, "todo.md", "Enter", shift=True).action == "open-frame"
    assert tree_key(items, "projects/", "Enter").action == "toggle"
    assert tree_key(items, "todo.md", "F2").action == "rename"
    assert tree_key(items, "todo.md", "Delete").action == "delete"
    assert tree_key(items, "todo.md", "ContextMenu").action == "actions"
    assert tree_key(items, "todo.md", "F10", shift=True).action == "actions"
    assert tree_key(items, "projects/", "Delete") is None
    assert tree_key(items, "todo.md", "Tab") is None


def test_a_letter_jumps_to_the_next_row_starting_with_it() -> None:
    items = _items()
    assert tree_key(items, "projects/", "w").focus == "welcome.md"
    assert tree_key(items, "welcome.md", "T").focus == "todo.md"
    assert tree_key(items, "todo.md", "z").focus == "todo.md"
    assert tree_key([], "x", "ArrowDown") is None


def test_a_new_folder_is_drawn_with_no_note_in_it() -> None:
    root = build_tree(["a.md", "projects/plan.md"], ["empty/", "projects/2027/"])
    assert [f.path for f in root.folders] == ["empty/", "projects/"]
    assert [f.path for f in root.folders[1].folders] == ["projects/2027/"]
    assert root.folders[0].notes == []


@pytest.mark.parametrize(
    ("typed", "folder"),
    [("projects", "projects/"), (" /a/b/ ", "a/b/"), ("日記", "日記/")],
)
def test_clean_folder(typed: str, folder: str) -> None:
    assert clean_folder(typed) == folder
    assert clean_folder(typed, "top/") == "top/" + folder


@pytest.mark.parametrize("typed", ["", "  /  ", "a/../b", "a//b", "a\\b"])
def test_clean_folder_refuses_bad_names_in_words(typed: str) -> None:
    with pytest.raises(ValueError, match=r"\w"):
        clean_folder(typed)


def test_a_drop_moves_into_the_folder_the_row_means() -> None:
    assert drop_folder("folder", "projects/") == "projects/"
    assert drop_folder("note", "projects/plan.md") == "projects/"
    assert drop_folder("note", "todo.md") == ""
    assert moved_into("projects/plan.md", "") == "plan.md"
    assert moved_into("plan.md", "a/b/") == "a/b/plan.md"


def test_move_to_selects_the_folder_part_and_shift_f2_asks_for_it() -> None:
    assert folder_span("a/b/plan.md") == (0, 4)
    assert folder_span("plan.md") == (0, 0)
    assert tree_key(_items(), "todo.md", "F2", shift=True).action == "move"


def test_a_folder_dropped_in_a_folder_keeps_its_name_and_never_enters_itself() -> None:
    assert folder_moved_into("a/b/", "") == "b/"
    assert folder_moved_into("b/", "archive/") == "archive/b/"
    assert folder_moved_into("a/b/", "a/") is None  # where it is already
    assert folder_moved_into("a/", "a/b/") is None  # inside itself
    assert folder_moved_into("a/", "a/") is None
