"""Requests the offline agent cannot do, found by what they ask rather than by a list of refusals.

SPEC §8's honesty rule used to hold only for the verbs listed here (rewrite, translate,
explain); anything else that pointed at "this note" fell through to a summary, so "compare this
note with todo.md" got one. Now a request has to be *understood* to be served: its leading
verb (in Japanese, its closing verb) must be one the agent acts on, and a question must be one
of its skills; any other verb with an object, and any other question, is BEYOND and named.
"""

from __future__ import annotations

import re

# What a BEYOND request asks for.
REWRITE = "rewrite"
TRANSLATE = "translate"
EXPLAIN = "explain"
WORLD = "world"  # a question about the world
QUESTION = "question"  # a question about a note that none of its skills answers
COMPARE = "compare"  # two notes side by side: it can only show both summaries
HISTORY = "history"  # what was written or changed when: nothing here can see that
APP = "app"  # an action on notes themselves (delete, rename, share ...): no model can do it
VERB = "verb"  # any other request; the intent's `verb` names it

_LISTED = [
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
            r"improve (?:it|this|the (?:wording|text|writing))|"
            r"check (?:\S+ ){0,3}for (?:typos|spelling|grammar|errors|mistakes))\b"
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
    (
        COMPARE,
        (
            r"\b(?:compar\w*|contrast\w*|versus|vs|differences? between|differ(?:s|ent)? from|"
            r"diff (?:of|between))\b|比較|比べ|違い|差分"
        ),
    ),
    (
        HISTORY,
        (
            r"\b(?:yesterday|last (?:week|month|night|time|year)|ago|earlier today|this morning|"
            r"recently|since (?:yesterday|monday|last)|history|revisions?|previous versions?)\b"
            r"|\bwhen did i\b|\bwho (?:wrote|changed|edited)\b"
            r"|\bwhat (?:did|have) i (?:write|wrote|written|change|changed|add|added|edit|edited|"
            r"do|done)\b"
            r"|昨日|きのう|先週|先月|去年|一昨日|おととい|前回|以前の|履歴|過去の版|いつ書|いつ変|誰が書"
        ),
    ),
]
_LISTED_COMPILED = [(name, re.compile(p, re.IGNORECASE)) for name, p in _LISTED]

_WORLD = re.compile(
    r"^\s*(?:who|when|where|why|whose|how (?:do|does|did|can|could|should|to|old|far|much)|"
    r"what(?:'s| is| are| was| were| will)|is it true|tell me (?:a joke|about)|can you tell me)\b"
    r"|\b(?:weather|capital of|stock price|news|recipe)\b"
    r"|なぜ|どうして|天気|誰|いつ|どこ|首都|ニュース|教えて|どう思|感想|意見",
    re.IGNORECASE,
)
# A question about the note it can only answer with a skill (so unmatched, it cannot).
_JA_QUESTION = re.compile(r"なぜ|どうして|誰|いつ|どこ|どう思|感想|意見|正しい|合って")

_FILLERS = re.compile(
    r"^(?:(?:ok(?:ay)?|so|hey|hi|hello|please|pls|plz|kindly|now|just|also|then|and|but)"
    r"\b[\s,!.]*|(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?"
    r"|i\s+(?:want|need|would like|'d like|wanna)\s+(?:you\s+)?(?:to\s+)?"
    r"|help\s+me\s+(?:to\s+)?|go ahead and\s+|try to\s+|let'?s\s+)+",
    re.IGNORECASE,
)
_CLAUSES = re.compile(r"\s*(?:[,;]|\band then\b|\bthen\b|\band\b|\balso\b)\s*", re.IGNORECASE)


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Verbs the agent acts on (a skill or an edit), and greetings.
KNOWN = _set(
    """summarise summarize summary sum recap tldr tl overview gist give show tell read open see
    view look display describe list find search grep count quote add create new put remind mark
    set tick check cross uncheck untick reopen complete finish append write insert jot note help
    hello hi hey thanks thank get fetch what's"""
)
# Light verbs: fine with a skill's noun ("make a summary"), a refusal without one.
LIGHT = _set("make create generate produce prepare provide write")
_APP = _set(
    """delete remove rename move share export print download upload email mail send publish
    archive duplicate copy pin star"""
)
_NOTE_OBJECT = re.compile(
    r"\b(?:notes?|files?|documents?|pages?)\b|\.(?:md|markdown|txt)\b", re.IGNORECASE
)
_OBJECTS = _set(
    "this that these those it them both the my a an all each every our your its here with "
    "between together up out down"
)
QUESTION_WORDS = _set(
    "what which who whom whose when where why how is are was were do does did have has "
    "should shall may might am"
)
_PATH = re.compile(r"\S+\.(?:md|markdown|txt)(?![A-Za-z0-9])", re.IGNORECASE)
_QUOTE_START = tuple("\"'“‘「『")


def _words(clause: str) -> list[str]:
    return [w.strip(".,!?;:()").casefold() for w in clause.split()]


def listed(message: str) -> str | None:
    """TRANSLATE, REWRITE, EXPLAIN, COMPARE or HISTORY when the message asks for one of them."""
    for name, pattern in _LISTED_COMPILED:
        if pattern.search(message):
            return name
    return None


def head(clause: str) -> list[str]:
    """The clause's words from its verb on, after "please", "can you", "I want you to" ..."""
    return _words(_FILLERS.sub("", clause.strip()))


def _has_object(clause_words: list[str], raw_next: str) -> bool:
    return (
        bool(raw_next)
        and (clause_words[1] in _OBJECTS or bool(_PATH.match(raw_next)))
        or raw_next.startswith(_QUOTE_START)
    )


def unknown_verb(message: str) -> tuple[str, str] | None:
    """(APP or VERB, the request as named) when a clause opens with a verb the agent does not
    act on, taking an object ("merge this note with todo.md", "delete it")."""
    for clause in _CLAUSES.split(message):
        stripped = _FILLERS.sub("", clause.strip())
        raw = stripped.split()
        words = _words(stripped)
        if len(words) < 2 or not words[0].isalpha() or len(words[0]) < 3:
            continue
        verb = words[0]
        if verb in KNOWN or verb in LIGHT or verb in QUESTION_WORDS:
            continue
        if not _has_object(words, raw[1]):
            continue
        named = " ".join(raw[:6]).rstrip(".,!?;:") + (" …" if len(raw) > 6 else "")
        if verb in _APP and (verb not in ("delete", "remove") or _NOTE_OBJECT.search(stripped)):
            return APP, verb
        return VERB, named
    return None


def light_verb(message: str) -> str | None:
    """The request, named, when it opens with a light verb ("make a table of this")."""
    stripped = _FILLERS.sub("", _CLAUSES.split(message)[0].strip())
    raw = stripped.split()
    if raw and _words(stripped)[0] in LIGHT:
        return " ".join(raw[:6]).rstrip(".,!?;:") + (" …" if len(raw) > 6 else "")
    return None


def is_question(message: str) -> bool:
    """Does the message ask a question in English (a question word first) of two words or more?"""
    words = head(message)
    return len(words) >= 2 and words[0] in QUESTION_WORDS


def world_question(message: str) -> bool:
    return bool(_WORLD.search(message))


def ja_question(message: str) -> bool:
    return bool(_JA_QUESTION.search(message))


# Japanese: the request's closing verb.
_JA_POLITE = re.compile(
    r"(?:ください|下さい|くださいませんか|くれますか|くれない|くれ|もらえますか|もらえる|"
    r"もらえない|ほしい|欲しい|ちょうだい|お願いします|お願い|ね|よ)$"
)
_JA_REQUEST = re.compile(r"(?:して|する|します|しろ|したい|て|で)$")
_JA_KNOWN = re.compile(
    r"(?:要約|まとめ|見せ|見て|表示|読ん|読み|教え|数え|探し|検索|一覧|引用|確認|出し|挙げ|"
    r"調べ|抜き出|抜き出し|列挙|チェック|追加|追記|完了に|戻し|外し|入れ|足し|開い|開け|書い)"
    r"(?:に|を)?(?:して|する|します|しろ|したい|て|で)$"
)
_JA_NAMED = re.compile(
    r"(?:[\u4e00-\u9fff\u30a0-\u30ffーA-Za-z]+(?:して|する|します|しろ|したい)"
    r"|[^\sをにでとがはもへの、。「」『』]{1,6}(?:て|で))$"
)
_JA_APP = re.compile(
    r"削除|消して|名前を変え|改名|移動|共有|エクスポート|印刷|ダウンロード|送信|送って"
)


def ja_unknown_verb(message: str) -> tuple[str, str] | None:
    """(APP or VERB, the closing verb) when a Japanese request ends in a verb it does not do."""
    text = re.sub(r"[\s。．.！!？?〜~]+$", "", message)
    for _ in range(3):
        text = _JA_POLITE.sub("", text)
    if not _JA_REQUEST.search(text) or _JA_KNOWN.search(text):
        return None
    named = _JA_NAMED.search(text)
    if named and len(named.group()) > 2:
        verb = named.group()
    else:  # the verb phrase after the last particle that never occurs inside a verb
        verb = re.split(r"[をがはもへ、。「」『』\s]", text)[-1][-10:]
    return (APP if _JA_APP.search(text) else VERB), verb
