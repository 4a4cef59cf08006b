"""The inline command's answer (SPEC §9): the configured model when there is one, else the
exact offline transforms (`inline_transforms`)."""

from __future__ import annotations

import re

from backend.assistant.inline_transforms import Answer, offline
from backend.assistant.language import language
from backend.assistant.messages import say
from backend.assistant.model import MALFORMED, STATUS, TIMEOUT, UNREACHABLE, ChatModel, ModelFailure

SYSTEM_PROMPT = """You edit one passage of a user's Markdown note.
You get the instruction, the passage, and some text before and after it for context only.
Reply with the new text for the passage and nothing else: no explanation, no code fence.
Keep the passage's language and line endings unless the instruction says otherwise."""

_FENCE = re.compile(r"\A```[^\n]*\n(.*)\n```\s*\Z", re.DOTALL)

# Why the model could not answer, by failure kind (model.ModelFailure); HTTP statuses are named.
_WHY = {
    TIMEOUT: "inline.why_timeout",
    UNREACHABLE: "inline.why_unreachable",
    MALFORMED: "inline.why_unreadable",
}


def _prompt(instruction: str, selection: str, before: str, after: str) -> str:
    return (
        f"Instruction: {instruction}\n\n<before>\n{before}\n</before>\n\n"
        f"<passage>\n{selection}\n</passage>\n\n<after>\n{after}\n</after>"
    )


def answer(
    model: ChatModel | None, *, instruction: str, selection: str, before: str, after: str
) -> Answer:
    """The app's model answers every instruction; without one, the offline transforms."""
    if model is None:
        return offline(instruction, selection)
    return ask_model(
        model, instruction=instruction, selection=selection, before=before, after=after
    )


def ask_model(
    model: ChatModel, *, instruction: str, selection: str, before: str, after: str
) -> Answer:
    """One chat completion (no tools) on the app's client; a failure becomes an explanation.
    The call is logged like the chat's (status and duration), never the text."""
    messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": _prompt(instruction, selection, before, after)},
    ]
    try:
        content = model.complete(messages, fields={"purpose": "inline"}).get("content")
        if not isinstance(content, str):
            raise ModelFailure(MALFORMED)
    except ModelFailure as failure:
        lang = language(instruction)
        why = f"HTTP {failure.status}" if failure.kind == STATUS else say(_WHY[failure.kind], lang)
        return Answer(None, say("inline.model", lang, why=why))
    fenced = _FENCE.match(content)
    return Answer(fenced.group(1) if fenced else content, None)
