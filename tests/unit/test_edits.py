"""ambient/edits.py: find exactly once, the append rule, limits and the plan's positions."""

from __future__ import annotations

import pytest

from ambient import edits
from ambient.edits import EditError, apply_edits, cm_changes, plan
from ambient.markdown import apply_change


def test_find_replace_and_append_apply_against_the_original_text():
    text = "- [ ] buy milk\n- [ ] call mum\n"
    out = apply_edits(
        text,
        [
            {"find": "- [ ] call mum", "replace": "- [x] call mum"},
            {"find": "buy milk", "replace": "buy oat milk"},
            {"append": "- [ ] sunscreen"},
        ],
    )
    assert out == "- [ ] buy oat milk\n- [x] call mum\n- [ ] sunscreen"


@pytest.mark.parametrize(
    ("text", "appends", "expected"),
    [
        ("a", ["b"], "a\nb"),
        ("a\n", ["b"], "a\nb"),
        ("", ["b"], "b"),
        ("a", ["b", "c"], "a\nb\nc"),
        ("a", ["b\n", "c"], "a\nb\nc"),
        ("x\r\ny", ["z"], "x\r\ny\r\nz"),
    ],
)
def test_append_goes_after_a_line_break_when_the_text_lacks_one(text, appends, expected):
    assert apply_edits(text, [{"append": a} for a in appends]) == expected


@pytest.mark.parametrize(
    ("text", "find", "reason"),
    [
        ("abc", "zzz", edits.NOT_FOUND),
        ("milk and milk", "milk", edits.AMBIGUOUS),
        ("aaa", "aa", edits.AMBIGUOUS),  # overlapping occurrences count
    ],
)
def test_a_find_must_occur_exactly_once(text, find, reason):
    with pytest.raises(EditError) as caught:
        apply_edits(text, [{"append": "x"}, {"find": find, "replace": "y"}])
    assert caught.value.reason == reason
    assert caught.value.index == 2
    assert caught.value.message.startswith("Edit 2:")
    assert find not in caught.value.message  # the message never echoes note text


def test_overlapping_finds_are_refused_naming_the_later_edit():
    with pytest.raises(EditError) as caught:
        plan("hello world", [{"find": "lo wor", "replace": ""}, {"find": "hello", "replace": ""}])
    assert caught.value.reason == edits.OVERLAP and caught.value.index == 1


@pytest.mark.parametrize(
    "bad",
    [
        [],
        None,
        "x",
        [{"find": "", "replace": "a"}],
        [{"find": "a"}],
        [{"find": "a", "replace": 1}],
        [{"append": "a", "find": "b"}],
        [{"append": None}],
        ["append"],
        [{"append": "a"}] * 21,
    ],
)
def test_bad_shapes_are_refused(bad):
    with pytest.raises(EditError) as caught:
        plan("a", bad)
    assert caught.value.reason == edits.BAD_EDIT


def test_twenty_edits_are_allowed():
    assert apply_edits("", [{"append": str(i)} for i in range(20)]).count("\n") == 19


def test_result_over_the_limit_is_refused():
    with pytest.raises(EditError) as caught:
        apply_edits("a", [{"append": "é" * 600_000}])
    assert caught.value.reason == edits.TOO_LARGE
    assert apply_edits("", [{"append": "a" * edits.MAX_RESULT_BYTES}])


def test_cm_changes_apply_as_one_transaction_in_utf16_positions():
    text = "😀 one\n- [ ] two 🍣\n"
    changes = cm_changes(text, [{"find": "- [ ] two", "replace": "- [x] two"}, {"append": "three"}])
    out = text
    for change in sorted(changes, reverse=True):  # apply from the end: positions stay valid
        out = apply_change(out, change)
    assert out == apply_edits(
        text, [{"find": "- [ ] two", "replace": "- [x] two"}, {"append": "three"}]
    )
    assert changes[0][0] == text.index("- [ ]") + 1  # the emoji is two UTF-16 units


def test_changed_message_says_in_plain_words_that_nothing_changed():
    with pytest.raises(EditError) as gone:
        plan("- [ ] buy oat milk\n", [{"find": "- [ ] buy milk", "replace": "- [x] buy milk"}])
    assert edits.changed_message(gone.value).startswith("Edit 1: the text it would change is no")
    with pytest.raises(EditError) as twice:
        plan("a\na\n", [{"find": "a", "replace": "b"}])
    assert "more than once" in edits.changed_message(twice.value)
    assert edits.changed_message(EditError(2, "overlap", "Edit 2: overlaps.")).endswith(
        "Nothing was changed."
    )


# --- {"heading", "append"}: edit_note's section append (outside agents with scope write) ---


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# A\nfoo\n\n# B\nbar\n", "# A\nfoo\nNEW\n\n# B\nbar\n"),
        ("# A\nx\n## Sub\ny\n# B\nz\n", "# A\nx\n## Sub\ny\nNEW\n# B\nz\n"),
        ("# A\n# B\n", "# A\nNEW\n# B\n"),
        ("# A", "# A\nNEW"),
        ("intro\n# A  \nfoo\n", "intro\n# A  \nfoo\nNEW"),
        ("```\n# A\n```\n# A\nq\n\n# C\n", "```\n# A\n```\n# A\nq\nNEW\n\n# C\n"),
        ("# A\r\nfoo\r\n# B\r\n", "# A\r\nfoo\r\nNEW\r\n# B\r\n"),
    ],
)
def test_heading_append_adds_at_the_end_of_that_section(text, expected):
    assert apply_edits(text, [{"heading": "# A", "append": "NEW"}], headings=True) == expected


def test_the_heading_is_compared_without_trailing_spaces_and_must_be_atx():
    text = "A\n===\nbody\n# A\n"
    assert apply_edits(text, [{"heading": "# A \t", "append": "x"}], headings=True) == (text + "x")
    with pytest.raises(EditError) as caught:
        apply_edits("A\n===\nbody\n", [{"heading": "A", "append": "x"}], headings=True)
    assert caught.value.reason == edits.HEADING_MISSING


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# B\nfoo\n", edits.HEADING_MISSING),
        ("## A\nfoo\n", edits.HEADING_MISSING),
        ("```\n# A\n```\n", edits.HEADING_MISSING),
        ("# A\none\n# A\ntwo\n", edits.HEADING_REPEATED),
    ],
)
def test_a_missing_or_repeated_heading_fails_and_never_appends_elsewhere(text, reason):
    with pytest.raises(EditError) as caught:
        apply_edits(text, [{"append": "x"}, {"heading": "# A", "append": "NEW"}], headings=True)
    assert (caught.value.index, caught.value.reason) == (2, reason)
    assert "occur" in caught.value.message or "no heading" in caught.value.message


def test_heading_edits_are_only_accepted_where_asked_for():
    with pytest.raises(EditError) as caught:
        apply_edits("# A\n", [{"heading": "# A", "append": "x"}])
    assert caught.value.reason == edits.BAD_EDIT
    with pytest.raises(EditError) as caught:
        apply_edits("# A\n", [{"heading": " ", "append": "x"}], headings=True)
    assert caught.value.reason == edits.BAD_EDIT


def test_a_heading_append_combines_with_finds_in_one_plan():
    text = "# A\nold\n\n# B\nkeep\n"
    got = apply_edits(
        text,
        [{"find": "keep", "replace": "kept"}, {"heading": "# A", "append": "- new"}],
        headings=True,
    )
    assert got == "# A\nold\n- new\n\n# B\nkept\n"
