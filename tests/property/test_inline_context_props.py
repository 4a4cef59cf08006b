"""Hypothesis properties of the inline command's bounded context (ambient.inline_context).

The cut is compared with a brute-force reference that tries every line start, so the
properties prove it exact (longest fitting whole-line context), not just within the limit.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ambient.inline_context import (
    CONTEXT_BYTES,
    SELECTION_BYTES,
    around,
    check,
    cut_after,
    cut_before,
    utf8_len,
)

ASCII = st.sampled_from(list("abc xyz-#*1.\t") + ["\n"] * 3)
JAPANESE = st.sampled_from(list("日本語のノート議事録メモ今日はです。、ｱ") + ["\n"] * 3)
MIXED = st.one_of(
    ASCII,
    JAPANESE,
    st.sampled_from(list("🙂🚀👩\u200d💻🇯🇵é\r\n")),
    st.characters(blacklist_categories=("Cs",)),
)
texts = st.one_of(
    st.text(ASCII, max_size=300), st.text(JAPANESE, max_size=300), st.text(MIXED, max_size=300)
)
limits = st.integers(min_value=0, max_value=120)


def _starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]


def reference_before(text: str, limit: int) -> str:
    fitting = [i for i in _starts(text) if utf8_len(text[i:]) <= limit]
    return text[min(fitting) :] if fitting else ""


def reference_after(text: str, limit: int) -> str:
    ends = [len(text)] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    fitting = [j for j in ends if utf8_len(text[:j]) <= limit]
    return text[: max(fitting)] if fitting else ""


@settings(max_examples=400)
@given(texts, limits)
def test_before_is_the_longest_whole_line_tail_within_the_limit(text, limit):
    cut = cut_before(text, limit)
    assert utf8_len(cut) <= limit
    assert text.endswith(cut)  # a str suffix: no character is split
    rest = text[: len(text) - len(cut)]
    assert cut == "" or rest == "" or rest.endswith("\n")  # starts at a line start
    assert cut == reference_before(text, limit)


@settings(max_examples=400)
@given(texts, limits)
def test_after_is_the_longest_whole_line_head_within_the_limit(text, limit):
    cut = cut_after(text, limit)
    assert utf8_len(cut) <= limit
    assert text.startswith(cut)
    assert cut == text or cut == "" or cut.endswith("\n")  # ends at a line end
    assert cut == reference_after(text, limit)


line = st.one_of(
    st.text(ASCII.filter(lambda c: c != "\n"), max_size=60),
    st.text(JAPANESE.filter(lambda c: c != "\n"), max_size=40),
    st.text(MIXED.filter(lambda c: c != "\n"), max_size=40),
)
documents = st.lists(line, min_size=0, max_size=200).map("\n".join)


@settings(max_examples=150)
@given(documents, st.data())
def test_the_real_limits_hold_around_any_selection(document, data):
    start = data.draw(st.integers(0, len(document)))
    end = data.draw(st.integers(start, len(document)))
    before, after = around(document, start, end)
    assert utf8_len(before) <= CONTEXT_BYTES and utf8_len(after) <= CONTEXT_BYTES
    assert document[:start].endswith(before) and document[end:].startswith(after)
    assert before == reference_before(document[:start], CONTEXT_BYTES)
    assert after == reference_after(document[end:], CONTEXT_BYTES)
    # What the page builds, the server accepts (same module, same limits).
    selection = document[start:end]
    assert (check(selection, before, after) is None) == (utf8_len(selection) <= SELECTION_BYTES)


@settings(max_examples=200)
@given(st.text(MIXED, max_size=80), st.integers(0, 4))
def test_check_names_the_limit_and_never_the_text(text, extra):
    marker = "Zq" * 3
    too_long = (marker + text) * (SELECTION_BYTES // max(1, utf8_len(marker + text)) + 1 + extra)
    for args in ((too_long, "", ""), ("", too_long, ""), ("", "", too_long)):
        message = check(*args)
        assert message is not None and marker not in message
    assert check(text, text, text) is None
