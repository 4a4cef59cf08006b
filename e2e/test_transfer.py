"""Import and export through the page (SPEC §18): a zip (or a folder, zipped in the page)
chosen in the import dialog is sent with a progress bar and reported; a refused one says which
entry; the Export link downloads the workspace and its bytes are the notes' bytes."""

from __future__ import annotations

import io
import os
import uuid
import zipfile
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from e2e import test_accessibility as a11y
from e2e.conftest import wait_ready
from support.servers import Server


def _zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


def _entries(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def test_import_a_zip_with_progress_and_report_then_export_it(
    alice: Page, server: Server, tmp_path: Path
) -> None:
    tag = uuid.uuid4().hex[:6]
    notes = {
        f"imp-{tag}/plain.md": b"# plain\n",
        f"imp-{tag}/crlf.md": b"---\r\ntitle: x\r\n---\r\nbody\r\n",
        f"imp-{tag}/\u65e5\u672c\u8a9e.md": "\u672c\u6587\n".encode(),
        # Filler, so the upload takes more than one progress event.
        f"imp-{tag}/big.md": os.urandom(450_000).hex().encode(),
    }
    picture = b"\x89PNG\r\n\x1a\n" + os.urandom(3000)
    vault = _zip(
        tmp_path / "vault.zip",
        {**notes, f"imp-{tag}/pic.png": picture, ".obsidian/app.json": b"{}"},
    )

    alice.get_by_test_id("import-open").click()
    dialog = alice.get_by_test_id("import-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_test_id("import-file").set_input_files(str(vault))
    dialog.get_by_test_id("import-submit").click()
    report = dialog.get_by_test_id("import-report")
    expect(report).to_contain_text("Imported 5 files; renamed 0, replaced 0, skipped 0, ignored 1.")
    expect(report.get_by_test_id("import-summary")).to_contain_text("Imported 5 files")
    expect(report).to_contain_text(".obsidian/app.json")
    progress = dialog.get_by_test_id("import-progress")
    expect(progress).to_be_visible()
    expect(progress).to_have_js_property("value", 1)
    # The list shows them (the import's events reach this window as any save does).
    dialog.get_by_test_id("import-dialog-close").click()
    expect(alice.locator(f"[data-testid=note-link][data-path='imp-{tag}/crlf.md']")).to_have_count(
        1
    )

    # The same zip again, renaming: every path is taken.
    alice.get_by_test_id("import-open").click()
    dialog.get_by_test_id("import-file").set_input_files(str(vault))
    dialog.get_by_test_id("import-conflict").select_option("rename")
    dialog.get_by_test_id("import-submit").click()
    expect(report).to_contain_text("Imported 0 files; renamed 4, replaced 0, skipped 1")
    expect(report).to_contain_text(f"imp-{tag}/plain.md → imp-{tag}/plain-1.md")

    # A hostile zip: refused whole, the entry named, nothing imported.
    bad = _zip(tmp_path / "bad.zip", {f"imp-{tag}/fine.md": b"x", "../evil.md": b"y"})
    dialog.get_by_test_id("import-file").set_input_files(str(bad))
    dialog.get_by_test_id("import-submit").click()
    expect(report).to_contain_text('The entry "../evil.md"')
    expect(report.get_by_test_id("import-error")).to_contain_text("../evil.md")
    expect(report).to_contain_text("nothing was imported")
    listing = alice.request.get(f"{server.url}/api/workspaces/personal/documents").json()
    assert f"imp-{tag}/fine.md" not in {d["path"] for d in listing}
    dialog.get_by_test_id("import-dialog-close").click()

    with alice.expect_download() as download_info:
        alice.get_by_test_id("export-workspace").click()
    download = download_info.value
    assert download.suggested_filename == "personal.zip"
    exported = _entries(Path(download.path()).read_bytes())
    assert {p: exported[p] for p in notes} == notes
    assert exported[f"imp-{tag}/plain-1.md"] == notes[f"imp-{tag}/plain.md"]
    assert exported[f"imp-{tag}/pic.png"] == picture  # attachments go out with the notes


def test_import_a_folder_chosen_in_the_page(alice: Page, server: Server, tmp_path: Path) -> None:
    """An Obsidian vault as it is on disk (no zip): its files are zipped in the page and sent
    through the same import, bar and report; notes land at their paths inside the vault."""
    tag = uuid.uuid4().hex[:6]
    vault = tmp_path / f"Vault {tag}"
    notes = {
        f"f-{tag}/notes/a.md": b"---\r\ntitle: A\r\n---\r\nsee [[b]] and ![[pic.png]]\r\n",
        f"f-{tag}/b.md": "\u672c\u6587 \u65e5\u8a18\n".encode(),
        # Filler, so there is more than one progress event.
        f"f-{tag}/big.md": os.urandom(300_000).hex().encode(),
    }
    picture = b"\x89PNG\r\n\x1a\n" + os.urandom(3000)
    files = {
        **notes,
        f"f-{tag}/pics/pic.png": picture,
        ".obsidian/app.json": b"{}",
        ".obsidian/workspace.json": b"{}",
    }
    for rel, data in files.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_bytes(data)

    alice.get_by_test_id("import-open").click()
    dialog = alice.get_by_test_id("import-dialog")
    chooser = dialog.get_by_label("Or a folder (an Obsidian vault)")
    expect(chooser).to_have_attribute("data-testid", "import-folder")
    # Reached by the keyboard: Tab from the zip input lands on it.
    dialog.get_by_test_id("import-file").focus()
    alice.keyboard.press("Tab")
    expect(chooser).to_be_focused()
    # A chosen zip is forgotten when a folder is chosen: one source at a time.
    dialog.get_by_test_id("import-file").set_input_files(
        str(_zip(tmp_path / "other.zip", {f"f-{tag}/not-me.md": b"x"}))
    )
    chooser.set_input_files(str(vault))
    expect(dialog.get_by_test_id("import-file")).to_have_js_property("value", "")
    dialog.get_by_test_id("import-submit").click()
    report = dialog.get_by_test_id("import-report")
    expect(report.get_by_test_id("import-summary")).to_have_text(
        "Imported 4 files; renamed 0, replaced 0, skipped 0, ignored 2."
    )
    expect(report.locator("[data-section=ignored]")).to_contain_text(".obsidian/app.json")
    expect(report.locator("[data-section=imported]")).to_contain_text(f"f-{tag}/notes/a.md")
    expect(report).not_to_contain_text(vault.name)  # the vault's own name is no folder
    expect(dialog.get_by_test_id("import-progress")).to_have_js_property("value", 1)
    a11y.audit(alice, "the import dialog with a folder's report")

    api = f"{server.url}/api/workspaces/personal"
    for path, data in notes.items():
        r = alice.request.get(f"{api}/documents/{quote(path)}")
        assert r.status == 200, path
        assert r.body() == data, path  # CRLF and front matter byte for byte
    r = alice.request.get(f"{api}/attachments/{quote(f'f-{tag}/pics/pic.png')}")
    assert r.status == 200 and r.body() == picture
    listing = alice.request.get(f"{api}/documents").json()
    assert not [d for d in listing if ".obsidian" in d["path"] or vault.name in d["path"]]
    dialog.get_by_test_id("import-dialog-close").click()
    expect(alice.locator(f"[data-testid=note-link][data-path='f-{tag}/notes/a.md']")).to_have_count(
        1
    )


@pytest.mark.parametrize("size", [(1440, 900), (1024, 768), (390, 844)], ids=str)
def test_the_controls_are_reachable(browser, server: Server, size) -> None:
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        wait_ready(page)
        page.get_by_test_id("login-username").fill("alice")
        page.get_by_test_id("login-password").fill("alice")
        page.get_by_test_id("login-submit").click()
        expect(page.get_by_test_id("workspace-select")).to_be_visible()
        for test_id in ("export-workspace", "import-open"):
            control = page.get_by_test_id(test_id)
            expect(control).to_be_visible()
            expect(control).to_be_in_viewport()
        page.get_by_test_id("import-open").click()
        expect(page.get_by_test_id("import-file")).to_be_visible()
        expect(page.get_by_test_id("import-folder")).to_be_visible()
        page.get_by_test_id("import-folder").scroll_into_view_if_needed()
        expect(page.get_by_test_id("import-folder")).to_be_in_viewport()
        expect(page.get_by_test_id("import-submit")).to_be_in_viewport()
    finally:
        context.close()
