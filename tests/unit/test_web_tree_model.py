"""The note list's folder tree and the names typed for new, renamed and copied notes."""

from __future__ import annotations

import pytest
from app.tree_model import build_tree, clean_new_path, copy_path, name_span


def test_folders_nest_and_sort_before_notes() -> None:
    root = build_tree(["welcome.md", "projects/roadmap.md", "b.md", "日記/今日.md",
                       "projects/archive/old.md", "A.md"])
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


@pytest.mark.parametrize(("typed", "path"), [
    ("ideas", "ideas.md"),
    ("  projects/plan  ", "projects/plan.md"),
    ("/notes.txt/", "notes.txt"),
    ("日記/明日", "日記/明日.md"),
])
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


@pytest.mark.parametrize(("path", "selected"), [
    ("projects/plan.md", "plan"),
    ("todo.md", "todo"),
    ("a/b/.hidden", ".hidden"),
    ("notes/README", "README"),
    ("日記/今日のメモ.md", "今日のメモ"),
    ("v1.2/release.notes.md", "release.notes"),
])
def test_rename_selects_the_name_only(path: str, selected: str) -> None:
    start, end = name_span(path)
    assert path[start:end] == selected
