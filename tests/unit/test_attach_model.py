"""The page's pure part of attachments (SPEC §18): what a paste uploads and inserts, and how
Preview finds and shows pictures (web/app/notes/attach_model.py, preview_model.py)."""

from __future__ import annotations

from app.notes.attach_model import (
    attachment_url,
    file_name,
    image_resolver,
    link_target,
    markdown_for,
    resolve_embed,
    resolve_image,
    too_large,
    upload_path,
)
from app.notes.preview_model import render

from ambient.contract import MAX_ATTACHMENT_BYTES

FILES = ["trips/attachments/cat.png", "pics/dog.png", "trips/dog.png", "a/doc.pdf", "root.gif"]


def test_which_files_a_paste_takes():
    assert file_name("cat.PNG", "image/png") == "cat.PNG"
    assert file_name("image", "image/png") == "image.png"
    assert file_name("", "image/jpeg") == "pasted.jpg"
    assert file_name("drawing", "image/svg+xml") == "drawing.svg"
    assert file_name("paper.pdf", "") == "paper.pdf"
    assert file_name("C:\\Users\\me\\cat.webp", "") == "cat.webp"
    assert file_name("notes.txt", "text/plain") is None
    assert file_name("page.html", "text/html") is None
    assert file_name("movie.mp4", "video/mp4") is None
    assert not too_large(MAX_ATTACHMENT_BYTES) and too_large(MAX_ATTACHMENT_BYTES + 1)


def test_kept_beside_the_note_and_linked_relative_to_it():
    assert upload_path("trips/japan.md", "cat.png") == "trips/attachments/cat.png"
    assert upload_path("top.md", "cat.png") == "attachments/cat.png"
    assert markdown_for("trips/japan.md", "trips/attachments/cat.png") == (
        "![cat](attachments/cat.png)"
    )
    assert markdown_for("top.md", "attachments/red dot (1).png") == (
        "![red dot (1)](attachments/red%20dot%20%281%29.png)"
    )
    assert markdown_for("a/b/c.md", "x/y.png") == "![y](../../x/y.png)"
    assert markdown_for("trips/japan.md", "trips/attachments/旅行.jpg") == (
        "![旅行](attachments/旅行.jpg)"
    )
    assert markdown_for("n.md", "attachments/paper.pdf") == "[paper](attachments/paper.pdf)"
    assert link_target("a#b?c%d.png") == "a%23b%3Fc%25d.png"


def test_the_inserted_link_resolves_back_to_the_file():
    for note, path in [
        ("trips/japan.md", "trips/attachments/red dot.png"),
        ("top.md", "attachments/50% [off].gif"),
        ("a/b/c.md", "x/y.png"),
    ]:
        src = markdown_for(note, path).split("](", 1)[1][:-1]
        assert resolve_image(note, src, [path]) == (path, True)


def test_relative_images_and_obsidian_embeds_resolve():
    assert resolve_image("trips/japan.md", "attachments/cat.png", FILES) == (
        "trips/attachments/cat.png",
        True,
    )
    # Written from the workspace root: found there when only that one exists.
    assert resolve_image("trips/japan.md", "pics/dog.png", FILES) == ("pics/dog.png", True)
    assert resolve_image("trips/japan.md", "nope.png", FILES) == ("trips/nope.png", False)
    assert resolve_image("a.md", "../../etc/passwd.png", FILES) == (None, False)
    assert resolve_image("a.md", "/abs.png", FILES) == (None, False)
    assert resolve_image("trips/j.md", "x.png", None) == ("trips/x.png", True)  # not listed yet
    # ![[name]]: the exact path, else the one file of that name; the note's folder first.
    assert resolve_embed("x.md", "pics/dog.png", FILES) == ("pics/dog.png", True)
    assert resolve_embed("trips/j.md", "dog.png", FILES) == ("trips/dog.png", True)
    assert resolve_embed("other/j.md", "dog.png", FILES) == ("pics/dog.png", True)
    assert resolve_embed("x.md", "CAT.png", FILES) == ("trips/attachments/cat.png", True)
    assert resolve_embed("x.md", "root.gif|200", FILES) == ("root.gif", True)
    assert resolve_embed("x.md", "gone.png", FILES) == ("gone.png", False)


def test_preview_shows_workspace_images_through_the_attachments_url():
    image = image_resolver("my ws", "trips/japan.md", FILES)
    html = render("![a cat](attachments/cat.png)\n\n![[dog.png]]\n", image=image)
    assert (
        '<img src="/api/workspaces/my%20ws/attachments/trips/attachments/cat.png" alt="a cat"'
        in html
    )
    assert 'src="/api/workspaces/my%20ws/attachments/trips/dog.png"' in html
    assert attachment_url("w", "a b/c#.png") == "/api/workspaces/w/attachments/a%20b/c%23.png"
    pdf = render("![[doc.pdf]]", image=image)
    assert 'data-testid="attachment-link"' in pdf and "<img" not in pdf
    missing = render("![x](gone.png) ![[gone.png]]", image=image)
    assert missing.count('data-testid="missing-image"') == 2 and "<img" not in missing
    # A note embed is the link to that note.
    assert 'class="wikilink" data-wikilink="plan"' in render("![[plan]]", image=image)


def test_remote_images_are_placeholders_and_never_load():
    image = image_resolver("w", "n.md", FILES)
    for src, host in [
        ("https://images.example.org/x.png", "images.example.org"),
        ("http://evil.test:8080/a.gif", "evil.test"),
        ("//cdn.example.com/y.png", "cdn.example.com"),
        ("HTTPS://UPPER.example/x.png", "upper.example"),
    ]:
        html = render(f"![pic]({src})", image=image)
        assert "<img" not in html, src
        assert f'data-host="{host}"' in html and f"Image from {host}" in html, html
    assert "<img" not in render("![x](javascript:alert(1)) ![y](data:image/png;base64,AAAA)")
    # Without a resolver (no workspace) nothing is requested either.
    assert "<img" not in render("![x](attachments/cat.png)")


def test_alt_text_and_names_are_escaped():
    image = image_resolver("w", "n.md", ['"><script>.png'])
    html = render('![<b>"x"</b>]("><script>.png)', image=image)
    assert "<script>" not in html and "<b>" not in html
    html = render('![["><script>.png]]', image=image)
    assert "<script>" not in html
