"""The message table: every message in every language, with the same fields, and no wording
chosen by a language test anywhere else."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from backend.assistant.language import LANGS
from backend.assistant.messages import MESSAGES, say

ROOT = Path(__file__).resolve().parents[2]
# Modules whose wording comes from the table (llm.py and inline.py join once folded in).
# (intent.py does test the language: to pick which grammar to read a message with.)
TABLE_USERS = ["replies.py", "agent.py", "turns.py", "llm.py", "inline.py", "inline_transforms.py"]


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


# Fields a language may leave out: English plurals, the tool's own English words, what a
# Japanese sentence says once instead of twice, and the size a reader expects (words in
# English, characters in Japanese).
MAY_DIFFER = {"s", "text", "path", "count", "words", "chars"}


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_every_message_has_every_language_with_the_same_fields(key):
    texts = MESSAGES[key]
    assert set(texts) == set(LANGS)
    assert all(text.strip() for text in texts.values())
    fields = {lang: _fields(text) for lang, text in texts.items()}
    common = set.intersection(*fields.values())
    assert set.union(*fields.values()) - common <= MAY_DIFFER, fields
    every = dict.fromkeys(set.union(*fields.values()), 1)
    assert all(say(key, lang, **every) for lang in LANGS)


def test_say_fills_fields_and_never_reads_a_value_as_a_template():
    assert say("summary.head", "en", path="{x}.md") == "Summary of {x}.md:"
    assert say("summary.head", "ja", path="議事録.md") == "「議事録.md」の要約です："
    assert say("counts", "en", path="a.md", words=1200, chars=5, bare=4, lines=1, bytes=5) == (
        "a.md has 1,200 words and 5 characters (4 without spaces) on 1 lines; 5 bytes saved."
    )


@pytest.mark.parametrize("name", TABLE_USERS)
def test_no_wording_is_chosen_by_comparing_a_language(name):
    tree = ast.parse((ROOT / "backend/assistant" / name).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            values = [node.left, *node.comparators]
            consts = {v.value for v in values if isinstance(v, ast.Constant)}
            assert not consts & set(LANGS), f"{name}:{node.lineno} compares with a language"
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            assert not set(LANGS) <= keys, f"{name}:{node.lineno} has its own wording table"
