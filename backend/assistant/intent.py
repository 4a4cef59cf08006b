"""Reading a chat message: its language, whether it points at "this note", and what it asks for."""

from __future__ import annotations

import re
from dataclasses import dataclass

SUMMARY = "summary"
TODOS = "todos"
COUNTS = "counts"
QUOTE = "quote"
FIND = "find"
LIST = "list"
HELP = "help"
READ = "read"  # a note-directed request with no more specific skill: summarise it

_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_LATIN = re.compile(r"[A-Za-z]")

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
        ],
    ),
    (QUOTE, [r"\b(?:select|selected|selection|highlighted|highlight|quote)\b"]),
    (
        TODOS,
        [r"\b(?:todos?|to-dos?|tasks?|checklists?|action items?|open items?|what's left|done)\b"],
    ),
    (
        COUNTS,
        [
            r"\bhow (?:many|long)\b",
            r"\b(?:word|character|char|line) ?counts?\b",
            r"\bcount\b|\blength\b",
        ],
    ),
    (
        SUMMARY,
        [
            r"\bsummar(?:y|ies|ise|ize|ising|izing)\b|\btl;?dr\b|\bgist\b|\boverview\b",
            r"\brecap\b|\bkey points\b",
            r"\bwhat(?:'s| is| does)? (?:this|it|that)(?: note)? (?:say|about)\b",
        ],
    ),
    (HELP, [r"^\s*(?:help|hi|hello|hey|thanks|thank you|what can you do)\b"]),
    (READ, [r"\b(?:read|show|open|look at|see|explain|describe|what's in)\b"]),
]
_JA_INTENTS = [
    (
        LIST,
        [
            r"(?:ノート|メモ|文書|ドキュメント|ファイル)(?:の)?(?:一覧|リスト)",
            r"どんな(?:ノート|メモ|文書)|何の(?:ノート|メモ)",
        ],
    ),
    (FIND, [r"含む|含まれ|言及|出てくる|書いてある(?:ノート|メモ)|検索|探して|について書いた"]),
    (QUOTE, [r"選択|選んだ|引用|ハイライト"]),
    (TODOS, [r"TODO|ToDo|todo|タスク|やること|未完了|完了|チェックリスト|残り"]),
    (COUNTS, [r"文字数|単語数|語数|何文字|何語|長さ|行数"]),
    (SUMMARY, [r"要約|まとめ|概要|要点|何が書いて|何について|内容"]),
    (HELP, [r"^\s*(?:ヘルプ|こんにちは|ありがとう|何ができ)"]),
    (READ, [r"読んで|見せて|表示|説明"]),
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
    """What a message asks: the skill, the language to answer in, deixis, and a search term."""

    kind: str
    lang: str
    deictic: bool
    term: str | None = None


def language(message: str) -> str:
    """ "ja" when the message reads as Japanese, else "en".

    Any kana means Japanese; kanji without kana count as Japanese when they outnumber the
    Latin letters (so "summarise 議事録" stays English only if the English part dominates).
    """
    if _KANA.search(message):
        return "ja"
    han, latin = len(_HAN.findall(message)), len(_LATIN.findall(message))
    return "ja" if han and han >= latin else "en"


def is_deictic(message: str) -> bool:
    """Does the message point at the note on screen ("this note", "it", このノート, これ ...)?

    File names are left out first, so "summarise notes-here.md" names a note, not "here".
    """
    message = _PATH_TOKEN.sub(" ", message)
    return bool(_EN_DEIXIS.search(message) or _JA_DEIXIS.search(message))


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


def classify(message: str) -> Intent:
    """The message's intent; a bare deictic message ("this?") defaults to a summary."""
    lang = language(message)
    deictic = is_deictic(message)
    compiled = _JA_COMPILED + _EN_COMPILED if lang == "ja" else _EN_COMPILED + _JA_COMPILED
    kind = None
    for name, pattern in compiled:
        if pattern.search(message):
            kind = name
            break
    term = None
    if kind == FIND:
        term = search_term(message)
        if term is None:
            kind = None
    if kind is None:
        kind = READ if deictic or mentions_path(message) else HELP
    return Intent(kind=kind, lang=lang, deictic=deictic, term=term)
