"""Reading a chat message: its language, whether it points at "this note", and what it asks for."""

from __future__ import annotations

import re
from dataclasses import dataclass

from backend.assistant import beyond as bd
from backend.assistant import typos
from backend.assistant.language import Lang, language

__all__ = ["Intent", "classify", "language"]  # `language` is the one detector (language.py)

SUMMARY = "summary"
TODOS = "todos"
COUNTS = "counts"
QUOTE = "quote"
FIND = "find"
LIST = "list"
HELP = "help"
READ = "read"  # a note-directed request with no more specific skill: summarise it
ADD_TODO = "add_todo"
MARK_DONE = "mark_done"
MARK_UNDONE = "mark_undone"
APPEND = "append"
HEADING = "heading"
BEYOND = "beyond"  # something the offline agent cannot do; `beyond` says what
EDITS = frozenset({ADD_TODO, MARK_DONE, MARK_UNDONE, APPEND, HEADING})
REWRITE, TRANSLATE, EXPLAIN, WORLD = bd.REWRITE, bd.TRANSLATE, bd.EXPLAIN, bd.WORLD
QUESTION = bd.QUESTION
COMPARE, HISTORY, APP, VERB = bd.COMPARE, bd.HISTORY, bd.APP, bd.VERB

_EN_DEIXIS = re.compile(
    r"\b(?:this|that|it|here|current|open|opened|active)\b"
    r"|\bthe (?:note|memo|document|doc|page|file) i(?:'m| am) (?:on|in|viewing|looking at|editing)",
    re.IGNORECASE,
)
_JA_DEIXIS = re.compile(r"この|これ|こちら|ここ|今(?:開いて|見て)|開いている|表示中")

# Order matters: the first intent with a matching alternative decides.
_EN_INTENTS = [
    (
        LIST,
        [
            r"\b(?:what|which) (?:notes|documents|docs|files)\b(?! (?:mention|contain|talk|refer))",
            r"\blist (?:(?:all|my|the) )*(?:notes|documents|docs|files)\b",
            r"\b(?:notes|documents|files) (?:do )?i have\b",
            r"\bshow (?:me )?(?:all )?my (?:notes|documents)\b",
        ],
    ),
    (
        FIND,
        [
            r"\b(?:mention|mentions|mentioning|mentioned|contain|contains|containing)\b",
            r"\b(?:search|find|look for|grep)\b",
            r"\b(?:notes?|documents?|files?) (?:that |which )?(?:talk|refer)s? ",
            r"\b(?:notes?|documents?|anything) (?:about|on|regarding) ",
        ],
    ),
    (QUOTE, [r"\b(?:select|selected|selection|highlighted|highlight|quote)\b"]),
    (
        TODOS,
        [
            r"\b(?:todos?|to-dos?|tasks?|checklists?|action items?|open items?|what's left|done)\b",
            r"\b(?:left|still) to do\b|\bstill (?:have|need) to do\b",
        ],
    ),
    (
        COUNTS,
        [
            r"\bhow (?:many|long)\b",
            r"\b(?:word|character|char|line) ?counts?\b",
            r"\bcount\b|\blength\b|\bhow big\b",
        ],
    ),
    (
        SUMMARY,
        [
            r"\bsummar(?:y|ies|ise|ize|ising|izing)\b|\btl;?dr\b|\bgist\b|\boverview\b",
            r"\brecap\b|\bkey points\b|\bmain points\b|\btakeaways\b|\bsum (?:\w+ )?up\b",
            r"\bwhat(?:'s| is| does)? (?:this|it|that)(?: note)? (?:say|about)\b",
        ],
    ),
    (
        HELP,
        [
            r"^\s*(?:help|hi|hello|hey|thanks|thank you)(?: there| again)?[\s!.,?]*$",
            r"^\s*help\b|\bwhat can you do\b",
        ],
    ),
    (READ, [r"\b(?:read|show|open|look at|see|describe|what's in)\b"]),
]
_JA_INTENTS = [
    (
        LIST,
        [
            r"(?:ノート|メモ|文書|ドキュメント|ファイル)(?:の|を)?(?:一覧|リスト)",
            r"どんな(?:ノート|メモ|文書)|何の(?:ノート|メモ)",
        ],
    ),
    (FIND, [r"含む|含まれ|言及|出てくる|書いてある(?:ノート|メモ)|検索|探して|について書いた"]),
    (QUOTE, [r"選択|選んだ|引用|ハイライト"]),
    (TODOS, [r"TODO|ToDo|todo|タスク|やること|未完了|完了|チェックリスト|残り|やり残|まだやって"]),
    (COUNTS, [r"文字数|単語数|語数|何文字|何語|長さ|行数"]),
    (SUMMARY, [r"要約|まとめ|概要|要点|何が書いて|何について|内容|ざっくり|かいつまんで|手短に"]),
    (HELP, [r"^\s*(?:ヘルプ|こんにちは|ありがとう|何ができ)"]),
    (READ, [r"読んで|見せて|表示"]),
]
# Edit requests: each pattern captures the payload as `t` (and `para` for a paragraph).
_COLON = r"\s*[:：]\s*"
_END = r"\s*[.!。！]?\s*$"
_EN_EDITS = [
    (
        ADD_TODO,
        [
            (
                r"^(?:please\s+)?(?:add|create|make|new|put)\s+(?:a\s+|an\s+|another\s+|new\s+)*"
                r"(?:todo|to-do|task|checkbox)(?:\s+item)?(?:\s+(?:to|in|on)\s+(?:this|the|my)\s+"
                r"(?:note|list|todos?|tasks?))?(?:\s*[:：\-–—]\s*|\s+(?:to\s+|called\s+|saying\s+)?)"
                r"(?P<t>.+)$"
            ),
            r"^(?:please\s+)?add\s+(?P<t>.+?)\s+(?:to|on)\s+(?:my|the|this)\s+(?:todo list|"
            r"to-do list|task list|todos?|to-dos?|tasks|list|checklist)" + _END,
            r"^(?:please\s+)?remind me to\s+(?P<t>.+)$",
        ],
    ),
    (
        MARK_UNDONE,
        [
            r"^(?:please\s+)?(?:mark|set)\s+(?P<t>.+?)\s+(?:as\s+)?(?:not done|undone|open|"
            r"incomplete|unfinished|not complete|unchecked|not finished)" + _END,
            r"^(?:please\s+)?(?:uncheck|untick|un-tick|reopen)\s+(?P<t>.+?)" + _END,
        ],
    ),
    (
        MARK_DONE,
        [
            r"^(?:please\s+)?(?:mark|set)\s+(?P<t>.+?)\s+(?:as\s+)?(?:done|complete|completed|"
            r"finished|checked)" + _END,
            r"^(?:please\s+)?(?:tick|check|cross)\s+off\s+(?P<t>.+?)" + _END,
            r"^(?:please\s+)?(?:tick|complete|finish)\s+(?P<t>.+?)" + _END,
            r"^(?:i(?:'ve| have)\s+)?(?:done|finished|completed)" + _COLON + r"(?P<t>.+)$",
            r"^i(?:'ve| have)?\s+(?:just\s+)?(?:finished|completed|done)\s+"
            r"(?!(?:nothing|anything|everything|it|that|this)\b)(?P<t>.+?)" + _END,
            r"^(?:please\s+)?(?:tick|check|cross)\s+(?P<t>.+?)\s+off" + _END,
            (
                r"^(?!(?:what|which|how|who|is|anything|nothing|everything)\b)"
                r"(?P<t>.+?)\s+is\s+(?:done|finished|complete)"
            )
            + _END,
        ],
    ),
    (
        HEADING,
        [
            (
                r"^(?:please\s+)?(?:add|insert|create|append)\s+(?:a\s+|an\s+|new\s+)*"
                r"(?:heading|header|section|title)(?:\s+(?:called|named|titled))?"
                r"(?:\s*[:：\-–—]\s*|\s+)(?P<t>.+)$"
            ),
        ],
    ),
    (
        APPEND,
        [
            r"^(?:please\s+)?(?:append|add|write)(?:\s+(?:a|an|new|one|this))*"
            r"(?:\s+(?:(?P<para>paragraph)|line|sentence|text|note))?"
            r"(?:\s+(?:to|at)\s+(?:the end|the bottom|this note|the note|it|this))*"
            + _COLON
            + r"(?P<t>.+)$",
            r"^(?:please\s+)?(?:append|add|write)\s+[\"“'‘](?P<t>.+?)[\"”'’]\s+(?:at|to)\s+"
            r"the\s+(?:end|bottom)(?:\s+of\s+(?:this|the)\s+note)?" + _END,
            r"^(?:please\s+)?append\s+(?P<t>.+)$",
            r"^(?:please\s+)?(?:jot|note|write)\s+down" + _COLON + r"(?P<t>.+)$",
        ],
    ),
]
_JA_EDITS = [
    (
        ADD_TODO,
        [
            r"^(?:タスク|TODO|ToDo|todo|やること)(?:を|に)?(?:追加|足)(?:して)?(?:ください)?"
            + _COLON
            + r"(?P<t>.+)$",
            (
                r"^(?P<t>.+?)(?:を|って)(?:タスク|TODO|ToDo|todo|やること)(?:リスト)?に"
                r"(?:追加|入れ|足)"
            ),
            r"^(?:新しい)?(?:タスク|TODO|ToDo|やること)[:：]\s*(?P<t>.+)$",
        ],
    ),
    (
        MARK_UNDONE,
        [
            r"^(?P<t>.+?)を(?:未完了|未完|未チェック|未着手)(?:に|へ)?(?:戻|し|す)",
            r"^(?P<t>.+?)の(?:チェック|完了)を(?:外|取り消|戻)",
        ],
    ),
    (
        MARK_DONE,
        [
            (
                r"^(?P<t>.+?)を(?:完了|済み|済|チェック|done|DONE)(?:に|と|済み)?(?:して|する|し|"
                r"にして|とマーク|マーク)"
            ),
            r"^(?P<t>.+?)(?:が|は)(?:終わった|終わりました|完了した|完了しました|済んだ|できた)",
            r"^(?P<t>.+?)に(?:チェック|✓|✔)を(?:入れ|つけ|付け)",
        ],
    ),
    (
        HEADING,
        [
            r"^見出し(?:を)?(?:追加)?(?:して)?(?:ください)?" + _COLON + r"(?P<t>.+)$",
            r"^[「『]?(?P<t>.+?)[」』]?という見出しを(?:追加|作|付)",
        ],
    ),
    (
        APPEND,
        [
            r"^(?:追記|末尾に追加|最後に追加|(?P<para>段落)を追加|行を追加|一行追加)(?:して)?"
            r"(?:ください)?" + _COLON + r"(?P<t>.+)$",
            r"^(?:末尾|最後)に[「『]?(?P<t>.+?)[」』]?(?:と|を)(?:追記|追加|書|足)",
            r"^[「『](?P<t>.+?)[」』](?:と|を)(?:追記|末尾に追加|最後に追加)",
        ],
    ),
]
_EDIT_COMPILED = [
    (name, [re.compile(p, re.IGNORECASE | re.DOTALL) for p in alts])
    for name, alts in _EN_EDITS + _JA_EDITS
]

_EN_COMPILED = [(name, re.compile("|".join(alts), re.IGNORECASE)) for name, alts in _EN_INTENTS]
_JA_COMPILED = [(name, re.compile("|".join(alts))) for name, alts in _JA_INTENTS]

_QUOTED = re.compile(r"[\"“”'‘]([^\"“”'‘]{1,80})[\"“”'’]|「([^」]{1,80})」|『([^』]{1,80})』")
_EN_TERMS = [
    re.compile(
        r"\b(?:mention|mentions|mentioning|mentioned|contain|contains|containing|"
        r"refer to|refers to|talk about|talks about)\s+(?:the word\s+)?([^\s?.!,]+)",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:search for|search|find|look for|grep)\s+(?:(?:notes?|documents?)\s+)?"
        r"(?:(?:about|with|for)\s+)?(?:the word\s+)?([^\s?.!,]+)",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:notes?|documents?|anything)\s+(?:about|on|regarding)\s+(?:the\s+)?([^\s?.!,]+)",
        re.IGNORECASE,
    ),
]
_JA_TERM = re.compile(
    r"([^\s、。をがはの「」]{1,40})(?:を|が)(?:含む|含ま|言及|検索|探)|([^\s、。]{1,40})について書いた"
)
_PATH_TOKEN = re.compile(
    r"[^\s\"'`「」『』（）()]+\.(?:md|markdown|txt)(?![A-Za-z0-9])", re.IGNORECASE
)
_PATHISH = re.compile(r"\.(?:md|markdown|txt)(?![A-Za-z0-9])", re.IGNORECASE)


@dataclass(frozen=True)
class Intent:
    """What a message asks: the skill, the language to answer in, deixis, and a search term.

    For an edit, `text` is the payload (the task, line or heading; for a mark, part of the
    task's text) and `paragraph` says an appended text is a paragraph; for BEYOND, `beyond`
    says what was asked (see beyond.py) and `verb` names an unknown request.
    """

    kind: str
    lang: Lang
    deictic: bool
    term: str | None = None
    text: str | None = None
    paragraph: bool = False
    beyond: str | None = None
    verb: str | None = None  # for BEYOND VERB or APP: the request as the user put it


def is_deictic(message: str) -> bool:
    """Does the message point at the note on screen ("this note", "it", このノート, これ ...)?

    File names are left out first, so "summarise notes-here.md" names a note, not "here".
    """
    # Japanese runs on into a file name ("このノートとtodo.md"), so its deixis is read as written.
    return bool(_EN_DEIXIS.search(_PATH_TOKEN.sub(" ", message)) or _JA_DEIXIS.search(message))


def mentions_path(message: str) -> bool:
    """Does the message look like it names a note by file name?"""
    return bool(_PATHISH.search(message))


def search_term(message: str) -> str | None:
    """The word a "which notes mention X" request is about: a quoted phrase first."""
    m = _QUOTED.search(message)
    if m:
        return next(g for g in m.groups() if g).strip()
    m = _JA_TERM.search(message)
    if m:
        return next(g for g in m.groups() if g).strip()
    for pattern in _EN_TERMS:
        m = pattern.search(message)
        if m:
            term = m.group(1).strip("\"'“”‘’")
            return term or None
    return None


_QUOTES = "\"'“”‘’「」『』`"
_EN_TASK_WORDS = re.compile(
    r"^(?:the|my|a)\s+|\s+(?:task|todo|to-do|item|one)$|^(?:task|todo|to-do)\s*[:：]?\s+",
    re.IGNORECASE,
)
_JA_TASK_WORDS = re.compile(r"(?:という|の)?(?:タスク|TODO|ToDo|todo|やること)$|^(?:タスク|TODO)の")


def clean_payload(text: str, kind: str) -> str:
    """The payload without surrounding quotes, spaces and (for a mark) words like "the task"."""
    text = text.strip().strip(_QUOTES).strip()
    if kind in (MARK_DONE, MARK_UNDONE):
        for _ in range(3):
            stripped = _JA_TASK_WORDS.sub("", _EN_TASK_WORDS.sub("", text)).strip()
            stripped = stripped.strip(_QUOTES).strip()
            if stripped == text:
                break
            text = stripped
    elif kind != APPEND:
        text = text.rstrip(".。").strip()
    return text


def _edit_match(text: str) -> tuple[str, re.Match] | None:
    for name, patterns in _EDIT_COMPILED:
        for pattern in patterns:
            m = pattern.search(text)
            if m and clean_payload(m.group("t"), name):
                return name, m
    return None


def edit_request(message: str) -> tuple[str, str, bool] | None:
    """(kind, payload, paragraph) when the message asks for an edit of the note."""
    found = _edit_match(message.strip())
    if found is None:
        return None
    name, m = found
    return name, clean_payload(m.group("t"), name), bool(m.groupdict().get("para"))


def _corrected_edit(message: str, fixed: typos.Corrected) -> tuple[str, str, bool] | None:
    """An edit asked with mistyped words ("ad a tood: …"); the payload is cut from the
    message as written, so a typo fix never changes what goes into the note."""
    lead = len(fixed.text) - len(fixed.text.lstrip())
    found = _edit_match(fixed.text.strip())
    if found is None:
        return None
    name, m = found
    start, end = fixed.original(m.start("t") + lead), fixed.original(m.end("t") + lead)
    payload = clean_payload(message[start:end], name)
    return (name, payload, bool(m.groupdict().get("para"))) if payload else None


def _refusal(message: str, unnamed: str, lang: Lang) -> tuple[str, str | None] | None:
    """(what, verb) when the message asks for something the agent does not do."""
    what = bd.listed(unnamed)
    if what is not None:
        return what, None
    return bd.unknown_verb(message) if lang == "en" else bd.ja_unknown_verb(message)


def _fallback(message: str, unnamed: str, lang: Lang, deictic: bool) -> tuple[str, str | None]:
    """No skill matched: a bare reference to a note reads it; anything else is not guessed at.

    Only "this?", "what's in it", "todo.md" and the like get the note's summary. A light verb
    with nothing the agent does ("make a table of this"), or a question it has no skill for
    ("is this note finished?"), is a refusal that names it, never a summary instead.
    """
    light = bd.light_verb(message) if lang == "en" else None
    if light is not None:
        return bd.VERB, light
    about_a_note = deictic or mentions_path(message)
    if lang == "en" and bd.is_question(unnamed):
        first = bd.head(unnamed)[0].split("'")[0]
        if first == "what" and about_a_note:
            return READ, None
        return (bd.QUESTION if about_a_note else bd.WORLD), None
    if lang == "ja" and bd.ja_question(unnamed):
        return (bd.QUESTION if about_a_note else bd.WORLD), None
    if deictic or mentions_path(message):
        return READ, None
    if bd.world_question(message):
        return bd.WORLD, None
    return HELP, None


def classify(message: str) -> Intent:
    """The message's intent; a bare deictic message ("this?") defaults to a summary.

    Mistyped request words are put right first (typos.py). Then: an edit request (its payload
    is not read for other intents), then anything the agent cannot do (beyond.py: listed
    verbs, and any other verb or question it does not know), then the note skills (file names
    are left out first, so "summarise todo.md" is a summary), else `_fallback`.
    """
    lang = language(message)
    fixed = typos.correct(message)
    text = fixed.text
    deictic = is_deictic(text)
    edit = edit_request(message) or (_corrected_edit(message, fixed) if text != message else None)
    if edit is not None:
        kind, payload, para = edit
        return Intent(kind=kind, lang=lang, deictic=deictic, text=payload, paragraph=para)
    unnamed = _PATH_TOKEN.sub(" ", text)
    refusal = _refusal(text, unnamed, lang)
    if refusal is not None:
        what, verb = refusal
        return Intent(kind=BEYOND, lang=lang, deictic=deictic, beyond=what, verb=verb)
    compiled = _JA_COMPILED + _EN_COMPILED if lang == "ja" else _EN_COMPILED + _JA_COMPILED
    kind = next((name for name, pattern in compiled if pattern.search(unnamed)), None)
    term = None
    if kind == FIND:
        term = search_term(message)
        if term is None:
            kind = None
    if kind is None:
        kind, verb = _fallback(text, unnamed, lang, deictic)
        if kind not in (READ, HELP):
            return Intent(kind=BEYOND, lang=lang, deictic=deictic, beyond=kind, verb=verb)
    return Intent(kind=kind, lang=lang, deictic=deictic, term=term)
