"""The inline command's page logic under CPython (web/app/chat/inline_model.py)."""

from __future__ import annotations

import json

from app.chat.inline_model import CHANGED, SHORTCUT, read_answer, request_body

from ambient.inline_context import CONTEXT_BYTES, SELECTION_BYTES


def _body(text: str, before: str = "", after: str = ""):
    return request_body(
        ws="personal",
        path="a.md",
        instruction="sort lines",
        start=3,
        end=3 + len(text),
        text=text,
        text_before=before,
        text_after=after,
    )


def test_the_request_carries_the_selection_and_only_bounded_context():
    lines = "".join(f"line {n:04}\n" for n in range(1_000))  # 10 KB each side
    body, problem = _body("b\na", before=lines, after=lines)
    assert problem is None
    assert body["selection"] == {"from": 3, "to": 6, "text": "b\na"}
    assert body["workspaceId"] == "personal" and body["path"] == "a.md"
    assert len(body["before"].encode()) <= CONTEXT_BYTES and lines.endswith(body["before"])
    assert len(body["after"].encode()) <= CONTEXT_BYTES and lines.startswith(body["after"])
    assert body["before"].startswith("line ") and body["after"].endswith("\n")


def test_an_oversized_selection_is_refused_before_sending():
    body, problem = _body("日" * (SELECTION_BYTES // 3 + 1))
    assert body is None and "16,384" in problem and "日" not in problem


def test_answers_become_a_replacement_or_a_sentence():
    ok = read_answer(200, json.dumps({"replacement": "- a", "explanation": None}))
    assert ok.replacement == "- a" and ok.message is None
    empty = read_answer(200, json.dumps({"replacement": "", "explanation": None}))
    assert empty.replacement == ""  # deleting the text is a real answer
    no = read_answer(200, json.dumps({"replacement": None, "explanation": "needs a model"}))
    assert no.replacement is None and no.message == "needs a model"
    assert read_answer(422, json.dumps({"detail": "Too big."})).message == "Too big."
    assert read_answer(403, "").message == "You do not have access to that workspace."
    assert "nothing was changed" in read_answer(502, "<html>").message
    assert read_answer(200, "not json").replacement is None


def test_the_words_the_user_sees():
    assert SHORTCUT == "Ctrl+K"
    assert "nothing was replaced" in CHANGED
