"""The one language detector for everything the assistant says: a message reads as "ja" or "en"."""

from __future__ import annotations

import re
from typing import Literal

Lang = Literal["en", "ja"]
LANGS: tuple[Lang, ...] = ("en", "ja")

_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff々〆]")
_LATIN = re.compile(r"[A-Za-z\uff21-\uff3a\uff41-\uff5a]")
# Latin text that says nothing about the writer's language: file names and paths, web
# addresses, and short labels Japanese writing borrows as they are (TODO, ToDo, PDF, MTG, OK).
_NEUTRAL = re.compile(
    r"https?://\S+"
    r"|[^\s\"'`「」『』（）()]+\.(?:md|markdown|txt)(?![A-Za-z0-9])"
    r"|(?<![A-Za-z])(?:[A-Z]{2,5}|[Tt]o[Dd]o|todo)s?(?![A-Za-z])"
)


def language(text: str) -> Lang:
    """ "ja" when the text reads as Japanese, else "en" (also for empty text).

    Any kana means Japanese. Without kana, kanji count as Japanese when they are at least as
    many as the Latin letters, once file names, web addresses and borrowed capital labels are
    left out: "TODO: 牛乳" is Japanese, "summarise 議事録 please" is English.
    """
    if _KANA.search(text):
        return "ja"
    rest = _NEUTRAL.sub(" ", text)
    han, latin = len(_HAN.findall(rest)), len(_LATIN.findall(rest))
    return "ja" if han and han >= latin else "en"
