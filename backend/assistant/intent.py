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
ADD_TODO = "add_todo"
MARK_DONE = "mark_done"
MARK_UNDONE = "mark_undone"
APPEND = "append"
HEADING = "heading"
BEYOND = "beyond"  # something only a language model can do; `beyond` says what
EDITS = frozenset({ADD_TODO, MARK_DONE, MARK_UNDONE, APPEND, HEADING})
# What a BEYOND request asks for.
REWRITE = "rewrite"
TRANSLATE = "translate"
EXPLAIN = "explain"
WORLD = "world"

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
    (READ, [r"\b(?:read|show|open|look at|see|describe|what's in)\b"]),
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
                r"^(?:please\s+)?(?:add|create|new|put)\s+(?:a\s+|an\s+|another\s+|new\s+)*"
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
            r"^(?:please\s+)?(?:tick|complete)\s+(?P<t>.+?)" + _END,
            r"^(?:i(?:'ve| have)\s+)?(?:done|finished|completed)" + _COLON + r"(?P<t>.+)$",
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

# Requests only a language model can do. Checked after edits, before the note skills.
_BEYOND = [
    (
        TRANSLATE,
        (
            r"\btranslat\w*|\b(?:in|into) (?:french|english|japanese|german|spanish|chinese|"
            r"korean|italian|portuguese)\b|翻訳|訳して|英訳|和訳|訳す|"
            r"(?:英語|日本語|フランス語|中国語|韓国語|ドイツ語|スペイン語)(?:に|で)(?:して|書|直|訳)"
        ),
    ),
    (
        REWRITE,
        (
            r"\b(?:re-?writ\w*|rephrase|reword|paraphrase|polish|proofread|shorten|simplify|"
            r"elaborate|expand on|continue writing|more formal\w*|more casual\w*|more polite\w*|"
            r"less formal\w*|fix (?:the |my )?(?:grammar|spelling|typos?|wording)|"
            r"make (?:it|this|that|the \w+) (?:more |less )?(?:formal|casual|polite|shorter|longer|"
            r"concise|clearer|friendlier|better)|"
            r"improve (?:it|this|the (?:wording|text|writing)))\b"
            r"|^(?:please\s+)?(?:write|draft|compose) (?:a|an|me)\b"
            r"|書き直|書きなおし|言い換え|リライト|清書|校正|添削|推敲|丁寧(?:な|に)|敬語|"
            r"フォーマルに|短くして|簡潔に|詳しく書|膨らませ|文章を(?:直|整)|作文"
        ),
    ),
    (
        EXPLAIN,
        (
            r"\bexplain\w*|\bwhat does \S+ mean\b|\bmeaning of\b|\bdefine\b|"
            r"説明して|説明してください|解説|意味を教え|どういう意味|って何|とは何|とは[？?]"
        ),
    ),
]
_BEYOND_COMPILED = [(name, re.compile(p, re.IGNORECASE)) for name, p in _BEYOND]
_WORLD = re.compile(
    r"^\s*(?:who|when|where|why|whose|how (?:do|does|did|can|could|should|to|old|far|much)|"
    r"what(?:'s| is| are| was| were| will)|is it true|tell me (?:a joke|about)|can you tell me)\b"
    r"|\b(?:weather|capital of|stock price|news|recipe)\b"
    r"|なぜ|どうして|天気|誰|いつ|どこ|首都|ニュース|教えて",
    re.IGNORECASE,
)

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
    """What a message asks: the skill, the language to answer in, deixis, and a search term.

    For an edit, `text` is the payload (the task, line or heading; for a mark, part of the
    task's text) and `paragraph` says an appended text is a paragraph; for BEYOND, `beyond`
    says what was asked (REWRITE, TRANSLATE, EXPLAIN or WORLD).
    """

    kind: str
    lang: str
    deictic: bool
    term: str | None = None
    text: str | None = None
    paragraph: bool = False
    beyond: str | None = None


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


def edit_request(message: str) -> tuple[str, str, bool] | None:
    """(kind, payload, paragraph) when the message asks for an edit of the note."""
    stripped = message.strip()
    for name, patterns in _EDIT_COMPILED:
        for pattern in patterns:
            m = pattern.search(stripped)
            if m:
                payload = clean_payload(m.group("t"), name)
                if payload:
                    para = bool(m.groupdict().get("para"))
                    return name, payload, para
    return None


def beyond_request(message: str) -> str | None:
    """REWRITE, TRANSLATE or EXPLAIN when the message asks for one of them."""
    for name, pattern in _BEYOND_COMPILED:
        if pattern.search(message):
            return name
    return None


def classify(message: str) -> Intent:
    """The message's intent; a bare deictic message ("this?") defaults to a summary.

    Order: an edit request (its payload is not read for other intents), then what only a
    language model can do, then the note skills (file names are left out first, so
    "summarise todo.md" is a summary), then a question about the world, else help.
    """
    lang = language(message)
    deictic = is_deictic(message)
    edit = edit_request(message)
    if edit is not None:
        kind, payload, para = edit
        return Intent(kind=kind, lang=lang, deictic=deictic, text=payload, paragraph=para)
    unnamed = _PATH_TOKEN.sub(" ", message)
    beyond = beyond_request(unnamed)
    if beyond is not None:
        return Intent(kind=BEYOND, lang=lang, deictic=deictic, beyond=beyond)
    compiled = _JA_COMPILED + _EN_COMPILED if lang == "ja" else _EN_COMPILED + _JA_COMPILED
    kind = None
    for name, pattern in compiled:
        if pattern.search(unnamed):
            kind = name
            break
    term = None
    if kind == FIND:
        term = search_term(message)
        if term is None:
            kind = None
    if kind is None:
        if deictic or mentions_path(message):
            kind = READ
        elif _WORLD.search(message):
            return Intent(kind=BEYOND, lang=lang, deictic=deictic, beyond=WORLD)
        else:
            kind = HELP
    return Intent(kind=kind, lang=lang, deictic=deictic, term=term)
