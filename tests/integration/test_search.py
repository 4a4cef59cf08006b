"""Search across notes (SPEC §11) on SQLite (FTS5 trigram) and PostgreSQL (pg_trgm)."""

from __future__ import annotations

import io
import json
import logging
import unicodedata
from urllib.parse import quote

import pytest
from alembic import command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from backend.db import build_engine
from backend.logging import LOGGER_NAME, JsonFormatter
from backend.migrations import alembic_config, upgrade_to_head
from backend.services import documents as documents_service
from backend.services import search as search_service
from backend.services.source import Source

SEARCH = "/api/workspaces/{ws}/search"
DOCS = "/api/workspaces/{ws}/documents/{path}"


def put(client, path: str, body: str, ws: str = "personal") -> None:
    response = client.put(DOCS.format(ws=ws, path=quote(path, safe="/")), content=body.encode())
    assert response.status_code in (200, 201), response.text


def find(client, q: str, ws: str = "personal") -> list[dict]:
    response = client.get(SEARCH.format(ws=ws), params={"q": q})
    assert response.status_code == 200, response.text
    return response.json()["results"]


def paths(results: list[dict]) -> set[str]:
    return {r["path"] for r in results}


def test_japanese_matches_inside_words(alice_client):
    put(alice_client, "日記/会議.md", "# 今週\n\n明日の会議室の予約を忘れずに\n牛乳を買う\n")
    put(alice_client, "other.md", "会社の話\n")
    # Two characters (below a trigram), three or more (the index), and mixed words.
    for q in ("議室", "会議室の予約", "予約 会議"):
        assert find(alice_client, q) == [
            {"path": "日記/会議.md", "line": 3, "snippet": "明日の会議室の予約を忘れずに"}
        ], q
    assert find(alice_client, "牛乳") == [
        {"path": "日記/会議.md", "line": 4, "snippet": "牛乳を買う"}
    ]
    assert paths(find(alice_client, "会")) == {"日記/会議.md", "other.md"}  # one character
    assert find(alice_client, "会議室 会社") == []  # every word, in one note


def test_english_is_case_insensitive(alice_client):
    put(alice_client, "a.md", "intro\nThe Quarterly ROADMAP review\n")
    for q in ("roadmap", "RoadMap", "quarterly REVIEW", "Qu", "ROAD", "the"):
        results = find(alice_client, q)
        assert paths(results) == {"a.md"}, q
        assert results[0]["line"] == 2 and results[0]["snippet"] == "The Quarterly ROADMAP review"


def test_every_word_is_required(alice_client):
    put(alice_client, "fruit.md", "apple banana\n")
    put(alice_client, "mixed.md", "apple\ncherry\n")
    put(alice_client, "none.md", "nothing here\n")
    assert paths(find(alice_client, "apple")) == {"fruit.md", "mixed.md"}
    assert paths(find(alice_client, "banana apple")) == {"fruit.md"}
    assert paths(find(alice_client, "cherry apple")) == {"mixed.md"}
    assert find(alice_client, "apple durian") == []
    assert find(alice_client, "ap ch") == [
        {"path": "mixed.md", "line": 1, "snippet": "apple"}  # first match of any word
    ]


def test_many_notes_give_at_most_50_most_recent_first(app, alice_client, db_session):
    for i in range(260):
        documents_service.save_document(
            db_session,
            workspace_id="personal",
            path=f"many/note-{i:03}.md",
            content=f"# Note {i:03}\nshared topic line\nserial n{i:03}x\n",
            max_bytes=1 << 20,
            source=Source.page(None),
        )
    put(alice_client, "team-note.md", "shared topic line\n", ws="team")
    results = find(alice_client, "shared topic")
    assert len(results) == 50
    assert [r["path"] for r in results] == [f"many/note-{i:03}.md" for i in range(259, 209, -1)]
    assert all(r["line"] == 2 and r["snippet"] == "shared topic line" for r in results)
    assert find(alice_client, "N123X topic") == [
        {"path": "many/note-123.md", "line": 2, "snippet": "shared topic line"}
    ]
    assert paths(find(alice_client, "shared", ws="team")) == {"team-note.md"}


def test_a_long_word_is_looked_up_in_the_index_not_in_every_note(alice_client, db_session):
    """On SQLite a search with a word of 3+ characters starts from the FTS5 matches: without
    statistics SQLite had walked every note of the workspace (55 ms against 6.8 ms for a word
    in 1,000 of 100,000 notes, docs/benchmarks.md). Only the workspace's notes still count."""
    put(alice_client, "mine.md", "the roadmap\n")
    put(alice_client, "plain.md", "nothing\n")
    put(alice_client, "theirs.md", "their roadmap\n", ws="team")
    assert paths(find(alice_client, "roadmap")) == {"mine.md"}
    assert paths(find(alice_client, "ROADMAP th")) == {"mine.md"}  # with a short word
    assert paths(find(alice_client, "roadmap", ws="team")) == {"theirs.md"}
    bind = db_session.get_bind()
    if bind.dialect.name != "sqlite":
        return  # PostgreSQL plans the trigram index by its own statistics (VACUUM ANALYZE)
    for terms in (["roadmap"], ["roadmap", "th"]):
        statement = search_service._matching("sqlite", "personal", terms).compile(
            bind, compile_kwargs={"literal_binds": True}
        )
        plan = " | ".join(
            row[-1] for row in db_session.execute(text(f"EXPLAIN QUERY PLAN {statement}"))
        )
        assert "SEARCH documents USING INTEGER PRIMARY KEY (rowid=?)" in plan, plan
        assert "sqlite_autoindex_documents" not in plan, plan


def test_line_and_snippet_rules(alice_client):
    long_line = "x" * 300 + " needle " + "y" * 300
    put(alice_client, "long.md", "first\r\nsecond line\r\n" + long_line + "\nafter\n")
    [hit] = find(alice_client, "needle")
    assert hit["line"] == 3
    assert "needle" in hit["snippet"] and len(hit["snippet"]) <= search_service.SNIPPET_CHARS
    assert hit["snippet"] in long_line
    [hit] = find(alice_client, "second")
    assert hit == {"path": "long.md", "line": 2, "snippet": "second line"}  # no \r
    # A combining mark stays with its letter even where the snippet is cut.
    accented = "e\u0301" * 200 + " mark"
    put(alice_client, "accent.md", accented)
    [hit] = find(alice_client, "mark")
    assert hit["line"] == 1 and hit["snippet"].endswith("mark")
    assert not hit["snippet"].startswith("\u0301")
    assert len(hit["snippet"]) <= search_service.SNIPPET_CHARS


def test_results_follow_save_rename_and_delete(alice_client):
    put(alice_client, "plan.md", "alpha plan\n")
    assert paths(find(alice_client, "alpha")) == {"plan.md"}
    put(alice_client, "plan.md", "intro\nbeta plan\n")  # save over it
    assert find(alice_client, "alpha") == []
    assert find(alice_client, "beta") == [{"path": "plan.md", "line": 2, "snippet": "beta plan"}]
    moved = alice_client.post(
        DOCS.format(ws="personal", path="plan.md") + "/move", json={"to": "archive/計画.md"}
    )
    assert moved.status_code == 200, moved.text
    assert find(alice_client, "beta") == [
        {"path": "archive/計画.md", "line": 2, "snippet": "beta plan"}
    ]
    deleted = alice_client.delete(DOCS.format(ws="personal", path=quote("archive/計画.md")))
    assert deleted.status_code == 204
    assert find(alice_client, "beta") == []
    assert find(alice_client, "pl") == []


def test_members_only(app, client, alice_client, bob_client):
    put(alice_client, "secret.md", "private words\n")
    put(alice_client, "shared.md", "private words\n", ws="team")
    assert client.get(SEARCH.format(ws="personal"), params={"q": "private"}).status_code == 401
    for ws in ("personal", "no-such-workspace"):
        response = bob_client.get(SEARCH.format(ws=ws), params={"q": "private"})
        assert response.status_code == 403, ws
        assert "private" not in response.text
    # Bob searches the workspace he shares with alice, and sees only its notes.
    assert paths(find(bob_client, "private", ws="team")) == {"shared.md"}
    # An invalid query from a non-member is still 403: membership is checked first.
    assert bob_client.get(SEARCH.format(ws="personal"), params={"q": ""}).status_code == 403
    # A session that has expired is no sign-in.
    from reliability_helpers import expire_session

    expire_session(app, alice_client)
    expired = alice_client.get(SEARCH.format(ws="personal"), params={"q": "private"})
    assert expired.status_code == 401 and "private" not in expired.text


@pytest.mark.parametrize(
    "q, why",
    [
        (None, "word"),
        ("", "word"),
        ("   \u3000", "word"),
        ("a" * 201, "200 characters"),
        (" ".join(f"w{i}" for i in range(11)), "at most 10"),
        ("nul\x00here", "cannot"),
    ],
)
def test_empty_oversized_or_unsearchable_query_is_422(alice_client, q, why):
    params = {} if q is None else {"q": q}
    response = alice_client.get(SEARCH.format(ws="personal"), params=params)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert why in detail
    if q and q.strip():
        assert q not in detail


def test_query_syntax_is_only_text(alice_client):
    """LIKE wildcards and FTS5 operators in a query are matched as plain characters."""
    put(alice_client, "percent.md", "done: 100% of it\n")
    put(alice_client, "snake.md", "call snake_case here\n")
    put(alice_client, "quote.md", 'she said "hi there" and left\n')
    put(alice_client, "ops.md", "a*b^c col:umn NEAR(x y) - back\\slash {a b}\n")
    put(alice_client, "plain.md", "plain text and more with words, or not\n")
    put(alice_client, "code.md", "x = \"\"\"doc\"\"\" + '''y'''; DROP TABLE t; -- z\n")
    cases = {
        "%": {"percent.md"},
        "100%": {"percent.md"},
        "0%": {"percent.md"},
        "_": {"snake.md"},
        "e_c": {"snake.md"},
        '"hi': {"quote.md"},
        '"hi there"': {"quote.md"},
        'said "hi': {"quote.md"},
        '"': {"quote.md", "code.md"},
        "a*b": {"ops.md"},
        "*": {"ops.md"},
        "^c": {"ops.md"},
        "col:umn": {"ops.md"},
        "NEAR(x": {"ops.md"},
        "back\\slash": {"ops.md"},
        "\\": {"ops.md"},
        "{a": {"ops.md"},
        "AND": {"plain.md", "quote.md"},
        "OR": {"plain.md"},
        "NOT": {"plain.md"},
        "-": {"ops.md", "code.md"},
        "(": {"ops.md"},
        "plain AND": {"plain.md"},
        "te%t": set(),
        "s_id": set(),
        "a%b": set(),
        "p*n": set(),
        '"""': {"code.md"},
        "'''": {"code.md"},
        "DROP TABLE t;": {"code.md"},
        "--": {"code.md"},
        '""" DROP': {"code.md"},
        ")))": set(),
        "NEAR/3": set(),
    }
    for q, expected in cases.items():
        assert paths(find(alice_client, q)) == expected, q


def _capture_logs():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    return stream, handler


def test_search_logs_neither_note_text_nor_query(app, alice_client, caplog):
    canary_note = "CANARYNOTE-5b1e-text-must-never-be-logged"
    canary_query = "CANARYQUERY-91c2"
    put(alice_client, "canary.md", f"{canary_note} {canary_query}\n")
    stream, handler = _capture_logs()
    logger = logging.getLogger(LOGGER_NAME)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    caplog.set_level(logging.DEBUG)
    try:
        assert len(find(alice_client, canary_query)) == 1
        assert find(alice_client, canary_query + " nomatch") == []
        alice_client.get(SEARCH.format(ws="personal"), params={"q": canary_query * 20})  # 422
    finally:
        logger.removeHandler(handler)
    ours = stream.getvalue()
    server_side = [
        caplog.handler.format(r) for r in caplog.records if not r.name.startswith("httpx")
    ]
    everything = ours + "\n".join(server_side)
    assert canary_note not in everything and canary_query not in everything
    requests = [json.loads(line) for line in ours.splitlines()]
    searches = [r for r in requests if r.get("route") == "/api/workspaces/{ws}/search"]
    assert [r["status"] for r in searches] == [200, 200, 422]


def test_service_limit_and_errors(app, alice_client, db_session):
    for i in range(5):
        put(alice_client, f"n{i}.md", "limit test\n")
    found = search_service.search(db_session, workspace_id="personal", query="LIMIT", limit=3)
    assert len(found) == 3 and set(found[0]) == {"path", "line", "snippet"}
    assert (
        len(search_service.search(db_session, workspace_id="personal", query="limit", limit=500))
        == 5
    )
    assert search_service.search(db_session, workspace_id="nobody", query="limit") == []
    with pytest.raises(search_service.InvalidQuery):
        search_service.search(db_session, workspace_id="personal", query=" ")


def test_migration_indexes_the_notes_already_there(db_url):
    engine = build_engine(db_url)
    try:
        command.upgrade(alembic_config(engine), "0004_outside_agents")
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO workspaces (id, name) VALUES ('w', 'W')"))
            conn.execute(
                text(
                    "INSERT INTO documents (workspace_id, path, path_sha256, content, bytes, "
                    "revision, updated_at) VALUES ('w', :p, :k, :c, 1, 1, :t)"
                ),
                [
                    {
                        "p": f"old-{i}.md",
                        "k": f"{i:064}",
                        "c": f"before the index\nold 既存メモ {i}",
                        "t": "2026-01-01 00:00:00",
                    }
                    for i in range(3)
                ],
            )
        upgrade_to_head(engine)
        from sqlalchemy.orm import Session

        with Session(engine) as db:
            found = search_service.search(db, workspace_id="w", query="既存メモ index")
            assert sorted(r["path"] for r in found) == ["old-0.md", "old-1.md", "old-2.md"]
            assert {r["line"] for r in found} == {1}
        # The index goes away with a downgrade and comes back, filled, with the upgrade.
        command.downgrade(alembic_config(engine), "0004_outside_agents")
        upgrade_to_head(engine)
        with Session(engine) as db:
            assert len(search_service.search(db, workspace_id="w", query="既存メモ")) == 3
    finally:
        engine.dispose()


def test_a_deleted_notes_words_never_reach_a_new_note(app, alice_client, db_session):
    """SQLite reuses a deleted row's id: the index must have forgotten the old text."""
    from backend.models import Document, Workspace

    put(alice_client, "gone.md", "ghostword here\n")
    old_id = db_session.query(Document.id).filter_by(path="gone.md").scalar()
    assert alice_client.delete(DOCS.format(ws="personal", path="gone.md")).status_code == 204
    put(alice_client, "new.md", "fresh text\n")
    db_session.expire_all()
    new_id = db_session.query(Document.id).filter_by(path="new.md").scalar()
    sqlite = db_session.get_bind().dialect.name == "sqlite"
    assert new_id == old_id if sqlite else new_id > old_id
    assert find(alice_client, "ghostword") == [] and find(alice_client, "gh") == []
    # A workspace's notes go with it (ON DELETE CASCADE), from the index too.
    put(alice_client, "team-ghost.md", "teamghost\n", ws="team")
    db_session.delete(db_session.get(Workspace, "team"))
    db_session.commit()
    put(alice_client, "reuse.md", "something else\n")
    assert search_service.search(db_session, workspace_id="team", query="teamghost") == []
    assert find(alice_client, "teamghost") == []
    if sqlite:
        # FTS5's own check that the index agrees with the documents table.
        db_session.execute(
            text(
                f"INSERT INTO {search_service.FTS_TABLE}({search_service.FTS_TABLE}, rank) "
                "VALUES ('integrity-check', 1)"
            )
        )


def test_letters_beyond_ascii_follow_the_database(db_url, alice_client):
    """Documented difference: SQLite's FTS5 folds Ä/ä (words of 3+ characters), a C-locale
    PostgreSQL (the test cluster's) folds ASCII only. The line is still right after a letter
    whose lower case is longer (İ), which makes the placement go line by line."""
    put(alice_client, "fruit.md", "İstanbul trip\nbuy ÄPFEL and pears\n")
    expected = [{"path": "fruit.md", "line": 2, "snippet": "buy ÄPFEL and pears"}]
    assert find(alice_client, "äpfel") == (expected if db_url.startswith("sqlite") else [])
    assert find(alice_client, "ÄPFEL pears") == expected  # same case: found everywhere


def test_short_words_fold_case_beyond_ascii_on_both_databases(alice_client):
    put(alice_client, "upper.md", "angle Ω here\n")
    put(alice_client, "lower.md", "small ω there\n")
    put(alice_client, "greek.md", "ΣΑ and more\n")
    put(alice_client, "other.md", "nothing greek\n")
    for q in ("ω", "Ω"):
        assert paths(find(alice_client, q)) == {"upper.md", "lower.md"}, q
    placed = {r["path"]: (r["line"], r["snippet"]) for r in find(alice_client, "ω")}
    assert placed["upper.md"] == (1, "angle Ω here")
    assert paths(find(alice_client, "σα")) == {"greek.md"}  # two letters, both folded
    assert paths(find(alice_client, "ςα")) == {"greek.md"}  # final sigma's capital is Σ
    assert paths(find(alice_client, "Σα more")) == {"greek.md"}
    assert find(alice_client, "ψ") == []


# --- the placement rules alone (no database) -------------------------------------------------


def test_place_finds_the_earliest_word_and_cuts_on_character_boundaries():
    place = search_service.place
    assert place("a\nb Beta\nalpha beta", ["ALPHA", "beta"]) == (2, "b Beta")
    assert place("x" * 500 + "needle", ["needle"]) == (1, "x" * 114 + "needle")
    middle = "x" * 500 + "needle" + "y" * 500
    assert place(middle, ["needle"]) == (1, "x" * 40 + "needle" + "y" * 74)
    family = "👨\u200d👩\u200d👧"  # one emoji of five code points
    line = family * 40 + " key"
    _, snippet = place(line, ["key"])
    assert snippet.endswith("key") and len(snippet) <= search_service.SNIPPET_CHARS
    emoji = snippet.removesuffix(" key")
    assert emoji == family * (len(emoji) // len(family)) and snippet in line  # whole emoji
    _, snippet = place("key " + "e\u0301" * 200, ["key"])
    assert len(snippet) <= search_service.SNIPPET_CHARS and not snippet.endswith("e")


def test_parse_query_splits_on_any_space_and_keeps_each_word_once():
    words = search_service.parse_query(" 会議\u3000予約\tRoad road ROAD ")
    assert words == ["会議", "予約", "Road"]
    assert search_service.parse_query("a" * search_service.MAX_QUERY_CHARS) == ["a" * 200]
    for bad in (None, 3, "", " \n ", "a" * 201, "x\x00", "\ud800"):
        with pytest.raises(search_service.InvalidQuery):
            search_service.parse_query(bad)


# --- any query (property) --------------------------------------------------------------------

_ALPHABET = "aAbBcé É会議室%_\\\"'*^:()-\u3000\u0301x"
_NOTES = {
    "p/1.md": "aab BBc\n会議室 %_ x",
    "p/2.md": 'é É ée\nAbc "quoted" a*b',
    "p/3.md": "first\nsecond 会議 (x) -a- \\ 'q'",
    "p/4.md": "e\u0301 combining\n^:^ caret:colon",
}


def _nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def _ascii_lower(s: str) -> str:
    return s.translate({c: c + 32 for c in range(ord("A"), ord("Z") + 1)})


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(q=st.text(alphabet=_ALPHABET, min_size=1, max_size=12))
def test_any_query_answers_200_or_422_and_only_true_matches(alice_client, q):
    if not getattr(alice_client, "_search_notes_written", False):
        for path, body in _NOTES.items():
            put(alice_client, path, body)
        alice_client._search_notes_written = True
    response = alice_client.get(SEARCH.format(ws="personal"), params={"q": q})
    if not q.split():
        assert response.status_code == 422
        return
    assert response.status_code == 200, response.text
    words = search_service.parse_query(q)
    got = paths(response.json()["results"])
    for path, body in _NOTES.items():
        if all(_ascii_lower(w) in _ascii_lower(body) for w in words):
            assert path in got, (q, path)  # both databases fold ASCII at least
        if path in got:  # in the note as stored or in NFC (é typed either way is one letter)
            assert all(
                w.casefold() in body.casefold() or _nfc(w).casefold() in _nfc(body).casefold()
                for w in words
            ), (q, path)


@pytest.mark.parametrize(
    ("stored", "typed"),
    [("cafe\u0301", "caf\u00e9"), ("caf\u00e9", "cafe\u0301")],
    ids=["nfd-note-nfc-query", "nfc-note-nfd-query"],
)
def test_a_word_is_found_whether_its_accents_are_composed_or_not(alice_client, stored, typed):
    # The same word typed as é (U+00E9) or as e + U+0301: NFC on both sides.
    put(alice_client, "menu.md", f"# Menu\n\nLe {stored} du coin\n")
    put(alice_client, "other.md", "cafeteria\n")
    for q in (typed, f"{typed} COIN", "\u00e9", "e\u0301", "f\u00e9 du"):
        results = find(alice_client, q)
        assert paths(results) == {"menu.md"}, q
        # The line is the note's own and the snippet is cut from the note as stored.
        assert results[0]["line"] == 3 and results[0]["snippet"] == f"Le {stored} du coin", q
