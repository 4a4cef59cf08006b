"""Hypothesis properties of the live merge (web/app/live/merge_model.py, SPEC §13).

A merge of line edits that do not touch (at least one untouched line between them) contains
both; whatever the three texts, no line the user typed is ever dropped: a conflict leaves
the screen as it is, and a clean merge keeps every line the screen added to the base.
"""

from __future__ import annotations

from collections import Counter

from app.live.merge_model import CONFLICT, MERGED, apply_changes, changes_between, reconcile
from hypothesis import given
from hypothesis import strategies as st

ALPHABET = st.sampled_from(list("ab xy-#*1") + ["\n"] * 3 + list("日本🙂\r"))
texts = st.text(ALPHABET, max_size=80)


@st.composite
def two_sided_edits(draw):
    """A base of distinct lines and edits by mine and theirs with a gap between the sides."""
    size = draw(st.integers(min_value=1, max_value=12))
    base = [f"line {i}" for i in range(size)]
    sides = [draw(st.sampled_from(["", "", "mine", "theirs"])) for _ in range(size)]
    for i in range(1, size):  # a line next to the other side's edit stays untouched
        if sides[i] and sides[i - 1] and sides[i] != sides[i - 1]:
            sides[i] = ""
    kinds = [draw(st.sampled_from(["replace", "delete", "add"])) for _ in range(size)]

    def edited(who: str) -> list[str]:
        out = []
        for i, line in enumerate(base):
            if sides[i] != who:
                out.append(line)
            elif kinds[i] == "replace":
                out.append(f"{who} changed {i}")
            elif kinds[i] == "add":
                out += [line, f"{who} added {i}"]
        return out

    expected = []
    for i, line in enumerate(base):
        who = sides[i]
        if not who:
            expected.append(line)
        elif kinds[i] == "replace":
            expected.append(f"{who} changed {i}")
        elif kinds[i] == "add":
            expected += [line, f"{who} added {i}"]
    final = draw(st.booleans())
    join = lambda lines: "\n".join(lines) + ("\n" if final and lines else "")
    return join(base), join(edited("mine")), join(edited("theirs")), join(expected)


@given(two_sided_edits())
def test_non_overlapping_line_edits_both_survive(case) -> None:
    base, mine, theirs, expected = case
    outcome = reconcile(base, theirs, mine)
    assert outcome.kind != CONFLICT
    assert outcome.text == expected


@given(texts, texts, texts)
def test_no_line_of_mine_is_ever_dropped(base, theirs, mine) -> None:
    outcome = reconcile(base, theirs, mine)
    if outcome.kind == CONFLICT:
        assert outcome.text == mine  # nothing changes on screen
    typed = Counter(mine.splitlines()) - Counter(base.splitlines())
    assert not typed - Counter(outcome.text.splitlines())


@given(texts, texts, texts)
def test_a_clean_merge_also_keeps_every_line_they_added(base, theirs, mine) -> None:
    outcome = reconcile(base, theirs, mine)
    if outcome.kind == MERGED:
        added = Counter(theirs.splitlines()) - Counter(base.splitlines())
        assert not added - Counter(outcome.text.splitlines())


@given(texts, texts)
def test_changes_turn_the_screen_into_the_decided_text(old, new) -> None:
    assert apply_changes(old, changes_between(old, new)) == new
