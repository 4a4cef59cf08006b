"""Finding the task a request means from the words the user remembers."""

from __future__ import annotations

import pytest

from backend.assistant import skills
from backend.assistant.matching import best

SEED_TODO = """# Todo

- [ ] Write the quarterly review
- [x] Book the team offsite venue
- [ ] Reply to Carol about the roadmap
- [ ] Renew the domain name
- [ ] Back up the laptop
- [ ] Try the mind map view on projects/roadmap.md
"""


def _texts(query: str, tasks: list[str]) -> list[str]:
    return best(query, tasks, lambda t: t)


@pytest.mark.parametrize(
    ("query", "task"),
    [
        ("laptop backup", "Back up the laptop"),  # other order, "backup" for "back up"
        ("the laptop back-up", "Back up the laptop"),
        ("quartely review", "Write the quarterly review"),  # a typo
        ("domain renewal", "Renew the domain name"),  # another form of the word
        ("reply carol", "Reply to Carol about the roadmap"),
        ("ＲＥＮＥＷ the domain", "Renew the domain name"),  # width and case
    ],
)
def test_a_paraphrase_finds_its_task(query, task):
    result = skills.mark_todo(SEED_TODO, query, done=True)
    assert result.outcome == "ok"
    assert result.item is not None and result.item.text == task


def test_two_tasks_that_fit_are_never_guessed_between():
    result = skills.mark_todo(SEED_TODO, "roadmap", done=True)
    assert result.outcome == "ambiguous"
    assert [c.line for c in result.candidates] == [5, 8]


def test_a_stricter_match_wins_over_looser_ones():
    tasks = ["buy milk", "buy milk and eggs", "milk the cow"]
    assert _texts("buy milk", tasks) == ["buy milk"]  # the whole text
    assert _texts("milk and eggs", tasks) == ["buy milk and eggs"]  # a part of it
    assert _texts("eggs milk", tasks) == ["buy milk and eggs"]  # its words in any order
    assert _texts("cow milking", tasks) == ["milk the cow"]  # close words


def test_nothing_close_matches_nothing():
    assert _texts("walk the dog", ["buy milk", "Back up the laptop"]) == []
    assert _texts("the", ["buy the milk"]) == ["buy the milk"]  # a part of the text, as before
    assert _texts("   ", ["buy milk"]) == []
    # Short words are not stretched: "cat" is not "car".
    assert _texts("wash cat", ["wash car"]) == []


def test_japanese_tasks_match_by_their_text():
    tasks = ["企画書の下書きを仕上げる", "牛乳を買う"]
    assert _texts("企画書", tasks) == ["企画書の下書きを仕上げる"]
    assert _texts("牛乳 買う", tasks) == ["牛乳を買う"]


def test_an_already_done_task_found_by_paraphrase_is_named():
    done = SEED_TODO.replace("- [ ] Back up", "- [x] Back up")
    result = skills.mark_todo(done, "laptop backup", done=True)
    assert result.outcome == "already"
    assert [c.text for c in result.candidates] == ["Back up the laptop"]
