"""The configured language model: one `openai` client per app, its model resolved once, and the
one way to call it (its failures mapped to four kinds in one table, each call logged)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import openai

from backend.config import Settings

log = logging.getLogger("ambient.assistant.llm")

OPENAI_BASE_URL = "https://api.openai.com/v1"  # used when only an API key is configured
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"
FALLBACK_MODEL = "default"  # sent when no model is set and the server lists none
# A failed GET /models is not asked again for this long: every turn meanwhile uses
# FALLBACK_MODEL instead of waiting for a listing that just failed (at most one listing a
# minute per app), and a server that comes back is picked up within a minute.
LIST_RETRY_SECONDS = 60.0

# The kinds of failure, each with its wording in the callers (the chat, the inline command).
TIMEOUT, UNREACHABLE, STATUS, MALFORMED = "timeout", "unreachable", "status", "malformed"


class ModelFailure(Exception):
    """A model call failed: `kind` is one of the four above (or a caller's own, e.g. "loop")."""

    def __init__(self, kind: str, status: int | None = None) -> None:
        super().__init__(kind)
        self.kind = kind
        self.status = status


class ChatModel:
    """One OpenAI-compatible client for the whole app, and the model it talks to."""

    def __init__(
        self,
        *,
        client: openai.OpenAI,
        model: str | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self._model = model
        self.clock = clock  # injectable: the listing retry interval is timed on it
        self._lock = threading.Lock()
        self._listing_failed_at: float | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> ChatModel | None:
        """A base URL (Ollama, llama.cpp: the model is the first one the server lists) or an
        API key alone (OpenAI itself, gpt-4o-mini); None when neither is set (offline)."""
        if not (settings.llm_base_url or settings.llm_api_key):
            return None
        base_url = (settings.llm_base_url or OPENAI_BASE_URL).rstrip("/")
        # No retries: a call should fail fast and plainly. A placeholder key is sent when none
        # is configured (local servers ignore it; the SDK would otherwise read OPENAI_API_KEY).
        client = openai.OpenAI(
            base_url=base_url,
            api_key=settings.llm_api_key or "no-key",
            timeout=settings.llm_timeout_seconds,
            max_retries=0,
        )
        openai_itself = base_url == OPENAI_BASE_URL
        return cls(
            client=client,
            model=settings.llm_model or (OPENAI_DEFAULT_MODEL if openai_itself else None),
        )

    def name(self) -> str:
        """The configured model, else the first one GET {base}/models lists, asked once per app.

        A failed or empty listing is remembered: FALLBACK_MODEL is used without asking again
        until LIST_RETRY_SECONDS have passed.
        """
        with self._lock:  # concurrent first turns ask once
            if self._model:
                return self._model
            now = self.clock()
            failed_at = self._listing_failed_at
            if failed_at is not None and now - failed_at < LIST_RETRY_SECONDS:
                return FALLBACK_MODEL
            try:
                first = next(iter(self.client.models.list()), None)
            except (openai.OpenAIError, ValueError, TypeError):
                first = None
            ident = getattr(first, "id", None)
            if not isinstance(ident, str) or not ident:
                self._listing_failed_at = now
                return FALLBACK_MODEL
            self._model = ident
            return ident

    def complete(
        self, messages: list[dict], *, tools: list[dict] | None = None, fields: dict[str, Any]
    ) -> dict:
        """One chat completion; its first message as a plain dict. ModelFailure on any failure."""
        with _call(fields, stream=False) as call:
            extra: dict[str, Any] = {"tools": tools} if tools else {}
            completion = self.client.chat.completions.create(
                model=self.name(), messages=messages, **extra
            )
            call["status"] = 200
            return first_message(completion)

    def stream(
        self, messages: list[dict], *, tools: list[dict] | None = None, fields: dict[str, Any]
    ) -> Iterator[tuple[str, Any]]:
        """One streamed completion: ("delta", text) and ("tool_delta", piece) as they arrive.
        Closing the generator (the user pressed Stop) closes the model's stream."""
        with _call(fields, stream=True) as call:
            extra: dict[str, Any] = {"tools": tools} if tools else {}
            stream = self.client.chat.completions.create(
                model=self.name(), messages=messages, stream=True, **extra
            )
            call["status"] = 200
            with stream:  # closed on every exit, Stop (GeneratorExit) included
                for chunk in stream:
                    if not chunk.choices:
                        continue
                    delta = chunk.choices[0].delta
                    if delta is None:
                        continue
                    if delta.content:
                        yield "delta", delta.content
                    for tc in delta.tool_calls or []:
                        yield "tool_delta", tc


@contextmanager
def _call(fields: dict[str, Any], *, stream: bool) -> Iterator[dict]:
    """One request to the model: the SDK's failures become a ModelFailure (the one error
    table), and it is logged with the caller's fields, the status and the duration (no text)."""
    start = time.perf_counter()
    call: dict[str, Any] = {"status": None}
    # A stream's chunks are read attribute by attribute: a malformed one may lack any.
    malformed = (openai.OpenAIError, ValueError, TypeError, IndexError)
    malformed += (AttributeError,) if stream else ()
    try:
        yield call
    except openai.APITimeoutError:
        raise ModelFailure(TIMEOUT) from None
    except openai.APIConnectionError:
        raise ModelFailure(UNREACHABLE) from None
    except openai.APIStatusError as exc:
        call["status"] = exc.status_code
        raise ModelFailure(STATUS, exc.status_code) from None
    except malformed:
        raise ModelFailure(MALFORMED) from None
    finally:
        logged = {**fields, "status": call["status"]}
        if stream:
            logged["stream"] = True
        logged["duration_ms"] = round((time.perf_counter() - start) * 1000, 2)
        log.info("llm_call", extra={"fields": logged})


def first_message(completion: Any) -> dict:
    """The first choice's message as a plain dict; malformed when there is none."""
    try:
        msg = completion.choices[0].message
        data = msg.model_dump(exclude_none=True) if hasattr(msg, "model_dump") else msg
    except (AttributeError, IndexError, TypeError):
        raise ModelFailure(MALFORMED) from None
    if not isinstance(data, dict):
        raise ModelFailure(MALFORMED)
    return data
