"""The offline assistant's replies laid out from the message table: rendering, no decisions."""

from __future__ import annotations

import re

from ambient.contract import EDIT
from backend.assistant import skills
from backend.assistant.language import Lang
from backend.assistant.messages import say

SUMMARY_TASKS = 8  # open tasks a summary names before "… and N more"
_CJK_END = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]$")
_CJK_START = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def help_text(lang: Lang) -> str:
    return say("help", lang)


def no_note(lang: Lang, *, switched_off: bool = False) -> str:
    return say("no_note_off" if switched_off else "no_note", lang)


def failure(result: dict, lang: Lang) -> str:
    """An access failure, in the tool's own words (English) or the same said in Japanese."""
    reason = result.get("reason")
    key = f"failure.{reason}" if f"failure.{reason}" in _FAILURES else "failure.no_delivery_row"
    return say(key, lang, text=result.get("text", ""))


_FAILURES = {
    "failure.no_delivery_row",
    "failure.expired",
    "failure.no_key_session",
    "failure.key_session_invalid",
    "failure.not_member",
    "failure.missing_document",
    "failure.bad_path",
}


def stale(caveat: str, lang: Lang) -> str:
    """The tool's caveat, verbatim, after a Japanese note for a Japanese reply."""
    return say("stale_note", lang, caveat=caveat)


def not_found(lang: Lang) -> str:
    return say("not_found", lang)


def listing(result: dict, lang: Lang) -> str:
    docs = result["documents"]
    if not docs:
        return say("listing.empty", lang)
    head = say(
        "listing.head",
        lang,
        count=len(docs),
        s="s" * (len(docs) != 1),
        workspace=result["workspaceId"],
    )
    return "\n".join([head, *(f"- {d['path']}" for d in docs)])


def partial_note(result: dict, lang: Lang) -> str:
    shown = len(result["content"].encode("utf-8"))
    return say("partial_note", lang, shown=shown, total=result["bytes"])


def _join(sentences: list[str]) -> str:
    """Sentences run on, each joined as its own script wants it: after a Japanese sentence
    nothing ("。" ends it) or "、", after an English one a space or "; " (list items have
    no closing punctuation). An English sentence after a Japanese one starts after "。" and a
    space, never glued to it ("」、The"). So English keeps its space in a Japanese summary."""
    out = ""
    for sentence in sentences:
        if out:
            ended = out[-1] in ".!?:。！？：…"
            if _CJK_END.search(out):
                if _CJK_START.match(sentence):
                    out += "" if ended else "、"
                else:
                    out += " " if ended else "。 "
            else:
                out += " " if ended else "; "
        out += sentence
    return out


def _task_lines(items: list, key: str, lang: Lang, limit: int | None = None) -> list[str]:
    shown = items if limit is None else items[:limit]
    lines = [say(key, lang, text=skills.plain(t.text), line=t.line) for t in shown]
    if limit is not None and len(items) > limit:
        lines.append(say("summary.more_tasks", lang, count=len(items) - limit))
    return lines


def summary(path: str, text: str, lang: Lang, partial: bool = False) -> str:
    """The note's key sentences by section, then its open tasks by name, then its size."""
    s = skills.summarize(text)
    report = skills.todo_report(text)
    if not s.sections and not report.open and not report.done:
        return say("summary.empty", lang, path=path)
    out = [say("summary.head", lang, path=path)]
    sep = say("summary.heading_sep", lang)
    for section in s.sections:
        body = _join(section.sentences)
        if section.heading and body:
            out.append(f"- {section.heading}{sep}{body}")
        elif section.heading:
            out.append(f"- {section.heading}")
        else:
            out.append(f"- {body}")
    if report.open:
        out.append(say("summary.open_tasks", lang, count=len(report.open)))
        out += _task_lines(report.open, "task.plain", lang, SUMMARY_TASKS)
    tail = say("summary.words", lang, words=s.words, chars=s.chars)
    if report.open or report.done:
        tail = say("summary.tasks", lang, open=len(report.open), done=len(report.done)) + tail
    if partial:
        tail += say("summary.part_read", lang)
    out.append(tail + say("summary.end", lang))
    return "\n".join(out)


def summaries(reads: list[dict], lang: Lang) -> str:
    """Each note's summary from its read, one after the other."""
    return "\n\n".join(
        summary(r["path"], r["content"], lang, partial=bool(r.get("partial"))) for r in reads
    )


def todos(path: str, text: str, lang: Lang, partial: bool = False) -> str:
    report = skills.todo_report(text)
    if not report.open and not report.done:
        body = say("todos.none", lang, path=path)
    else:
        out = [say("todos.open", lang, path=path, count=len(report.open))]
        out += _task_lines(report.open, "task.open", lang) or ["- —"]
        out.append(say("todos.done", lang, count=len(report.done)))
        out += _task_lines(report.done, "task.done", lang) or ["- —"]
        body = "\n".join(out)
    return body + ("\n" + say("todos.partial", lang) if partial else "")


def counts(path: str, text: str, lang: Lang, total_bytes: int | None = None) -> str:
    """Sizes of the note; `total_bytes` (a partial read) makes them about the part read only."""
    c = skills.counts(text)
    fields = {
        "path": path,
        "words": c.words,
        "chars": c.chars,
        "bare": c.chars_no_spaces,
        "lines": c.lines,
        "bytes": c.bytes,
    }
    if total_bytes is not None and total_bytes > c.bytes:
        return say("counts.partial", lang, total=total_bytes, **fields)
    return say("counts", lang, **fields)


def mentions(term: str, found: list[skills.Mention], searched: int, total: int, lang: Lang) -> str:
    if not found:
        head = say("search.none", lang, term=term)
    else:
        head = say("search.head", lang, term=term, count=len(found))
    lines = [
        say(
            "mentions.hit",
            lang,
            path=m.path,
            count=m.count,
            s="s" * (m.count != 1),
            line=m.line,
            snippet=m.snippet,
        )
        for m in found
    ]
    if searched < total:
        lines.append(say("mentions.more", lang, searched=searched, total=total))
    return "\n".join([head, *lines])


def search_results(term: str, results: list[dict], lang: Lang) -> str:
    """The notes the search service found for a "which notes mention …" request."""
    if not results:
        return say("search.none", lang, term=term)
    lines = [
        say("search.hit", lang, path=r["path"], line=r["line"], snippet=r["snippet"])
        for r in results
    ]
    return "\n".join([say("search.head", lang, term=term, count=len(results)), *lines])


def quote(path: str, result: dict, lang: Lang) -> str:
    """Quote the selection recorded with the pointer, when the saved copy can be trusted."""
    selection = result.get("selection")
    if result.get("view") != EDIT or selection is None:
        return say("quote.not_edit", lang, path=path)
    if result.get("partial"):
        return say("quote.partial", lang)
    if result.get("stale"):
        return say("quote.stale", lang)
    text = result["content"]
    picked = skills.quote_selection(text, selection["anchor"], selection["head"])
    if not picked:
        return say("quote.nothing", lang, path=path, line=skills.line_of(text, selection["head"]))
    first = skills.line_of(text, min(selection["anchor"], selection["head"]))
    quoted = "\n".join(f"> {line}" for line in picked.split("\n"))
    return say("quote.head", lang, path=path, line=first) + "\n" + quoted


# --- What the offline agent cannot do -------------------------------------------------------

_BEYOND_KEYS = {"rewrite", "translate", "explain", "world", "question", "compare"}


def beyond(what: str, lang: Lang, verb: str | None = None) -> str:
    """A plain "I can't do that" naming what was asked; never a summary or a listing instead.

    `what` is one of beyond.py's kinds: HISTORY and APP (an action on notes themselves) say
    that no model could do it either; VERB names the request (`verb`); the others name what.
    """
    if what == "history":
        return say("beyond.history", lang)
    if what == "app":
        return say("beyond.app", lang, verb=verb or "")
    if what == "verb" and verb:
        thing = say("beyond.verb", lang, verb=verb)
    else:
        thing = say(f"beyond.{what if what in _BEYOND_KEYS else 'world'}", lang)
    return say("beyond", lang, thing=thing)


def comparison(reads: list[dict], lang: Lang) -> str:
    """ "I can't compare", then each note's summary, saying plainly that is all it can do."""
    head = [beyond("compare", lang), say("compare.summaries", lang)]
    return "\n\n".join([*head, summaries(reads, lang)])


# --- Edit proposals -------------------------------------------------------------------------


def _q(text: str, lang: Lang) -> str:
    return say("quoted", lang, text=text)


def proposed_todo(path: str, task: str, after: str | None, lang: Lang) -> str:
    if after:
        return say(
            "proposed.todo_after", lang, path=path, task=_q(task, lang), after=_q(after, lang)
        )
    return say("proposed.todo_end", lang, path=path, task=_q(task, lang))


def proposed_mark(path: str, task: str, done: bool, lang: Lang) -> str:
    return say("proposed.done" if done else "proposed.undone", lang, path=path, task=_q(task, lang))


def proposed_append(path: str, paragraph: bool, lang: Lang) -> str:
    return say("proposed.paragraph" if paragraph else "proposed.line", lang, path=path)


def proposed_heading(path: str, line: str, lang: Lang) -> str:
    return say("proposed.heading", lang, path=path, line=_q(line, lang))


def mark_problem(path: str, query: str, outcome: str, candidates: list, done: bool, lang: Lang):
    """Why no task was marked: none matches, already in that state, or which one is meant."""
    if outcome == "ambiguous":
        head = say("mark.ambiguous", lang, path=path, query=_q(query, lang), count=len(candidates))
        return "\n".join([head, *_task_lines(candidates, "task.plain", lang)])
    if outcome == "already":
        task = skills.plain(candidates[0].text) if len(candidates) == 1 else query
        key = "mark.already_done" if done else "mark.already_open"
        return say(key, lang, path=path, task=_q(task, lang))
    return say("mark.none", lang, path=path, query=_q(query, lang))


def edit_refused(result: dict, lang: Lang) -> str:
    """propose_edit said no (the note changed meanwhile, or the result is too large)."""
    key = "edit.too_large" if result.get("reason") == "edit_too_large" else "edit.refused"
    return say(key, lang, text=result.get("text", ""))
