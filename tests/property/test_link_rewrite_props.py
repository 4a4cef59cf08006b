"""Hypothesis properties of the link rewriter (backend/services/link_rewrite.py, SPEC §18),
checked against the page's own parser and resolver (web/app/notes/links_model.py).

After a move, every link leads where it led (to the moved note's new path when it led to the
old one), as the page reads it; a rename never changes text that is not a link to a note the
moves concern; code is never touched; and the rewriter resolves exactly as the page does.
"""

from __future__ import annotations

from app.notes.links_model import resolve_relative, resolve_wikilink
from app.notes.preview_model import parser
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.services.link_rewrite import Paths, rewrite

FOLDERS = ["", "a/", "a/b/", "c/", "日記/"]
NAMES = ["x", "y", "X", "plan", "my note", "今日"]
paths_st = st.lists(
    st.builds(lambda f, n: f"{f}{n}.md", st.sampled_from(FOLDERS), st.sampled_from(NAMES)),
    min_size=2,
    max_size=8,
    unique=True,
)


def _href(note: str, target: str, style: str) -> str:
    import posixpath
    from urllib.parse import quote

    rel = posixpath.relpath(target, posixpath.dirname(note) or ".")
    path = {"rel": rel, "root": target, "dot": "./" + rel}[style]
    return quote(path, safe="/") if " " in path else path


@st.composite
def scenario(draw):
    paths = draw(paths_st)
    note = draw(st.sampled_from(paths))
    old = draw(st.sampled_from(paths))
    new = draw(
        st.builds(
            lambda f, n: f"{f}{n}.md", st.sampled_from(FOLDERS), st.sampled_from(NAMES)
        ).filter(lambda p: p not in paths)
    )
    pieces = []
    for _ in range(draw(st.integers(1, 8))):
        target = draw(st.sampled_from([*paths, "missing.md"]))
        name = target[: -len(".md")]
        bare = name.rsplit("/", 1)[-1]
        kind = draw(
            st.sampled_from(
                ["wiki", "wikibare", "alias", "embed", "md", "angle", "code", "fence", "text"]
            )
        )
        style = draw(st.sampled_from(["rel", "root", "dot"]))
        pieces.append(
            {
                "wiki": f"[[{name}]]",
                "wikibare": f"see [[{bare}#Head]] now",
                "alias": f"[[{bare}|{bare} alias]]",
                "embed": f"![[{bare}.md]]",
                "md": f"[{bare}]({_href(note, target, style)}#h)",
                "angle": f"[t](<{_href(note, target, style).replace('%20', ' ')}>)",
                "code": f"`[[{bare}]]` and `[t]({target})`",
                "fence": f"```\n[[{bare}]]\n[t]({target})\n```",
                "text": f"{bare} plain words ({target})",
            }[kind]
        )
    return paths, note, old, new, pieces


def links(note: str, text: str, paths) -> list[str | None]:
    """What each link of `text` leads to (None: no note), in order, as the page reads it."""
    found = []

    def walk(tokens):
        for token in tokens:
            if token.type in ("wikilink", "embed"):  # `![[note]]` shows as a link to it
                path, ok = resolve_wikilink(note, token.meta["target"], paths)
                found.append(path if ok else None)
            elif token.type == "link_open":
                path, ok = resolve_relative(note, token.attrGet("href") or "", paths)
                found.append(path if ok else None)
            if token.children:
                walk(token.children)

    walk(parser().parse(text))
    return found


@settings(max_examples=300, deadline=None)
@given(scenario())
def test_every_link_leads_where_it_led_and_nothing_else_changes(case):
    paths, note, old, new, pieces = case
    text = "\n\n".join(pieces) + "\n"
    moves = {old: new}
    after = [moves.get(p, p) for p in paths]
    out = rewrite(text, note_before=note, moves=moves, paths_before=paths)
    note_after = moves.get(note, note)
    before_links = links(note, text, paths)
    assert links(note_after, out, after) == [t and moves.get(t, t) for t in before_links]
    out_pieces = out[:-1].split("\n\n")
    assert len(out_pieces) == len(pieces)
    for was, now in zip(pieces, out_pieces, strict=True):
        if was.startswith(("`", "```")) or "plain words" in was:
            assert now == was  # code and plain text are never touched
    if links(note_after, text, after) == [t and moves.get(t, t) for t in before_links]:
        assert out == text  # every link already leads where it should: nothing is rewritten


@settings(max_examples=300, deadline=None)
@given(
    paths_st,
    st.sampled_from(["x.md", "a/x.md", "a/b/y.md", "日記/今日.md"]),
    st.lists(
        st.sampled_from([*"xyplan今日/.# |", "my note", "../", "%20", ".md"]), max_size=12
    ).map("".join),
)
def test_the_rewriter_resolves_as_the_page_does(paths, note, target):
    mine = Paths(paths)
    if target.strip() and not any(c in target for c in "[]\n"):
        assert mine.wikilink(note, target) == resolve_wikilink(note, target, paths)
    assert mine.relative(note, target) == resolve_relative(note, target, paths)
