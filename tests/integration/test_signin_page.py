"""The page's plain sign-in form (web/index.html): sent only to a request without a session
cookie, so a person signs in while Python loads and a signed-in visit never flashes it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import seed_world, sign_in
from fastapi.testclient import TestClient

from backend.delivery.runtime import CHECKOUT_WEB

SPEC_IDS = ("login-username", "login-password", "login-submit")


@pytest.fixture
def page_app(app_factory, fake_web_dir: Path, tmp_path: Path):
    """The standard world, serving the real index.html (over the stub runtime)."""
    web = tmp_path / "web"
    shutil.copytree(fake_web_dir, web)
    shutil.copy(CHECKOUT_WEB / "index.html", web / "index.html")
    for name in ("signin-early.js", "pyscript.json"):
        shutil.copy(CHECKOUT_WEB / "static" / name, web / "static" / name)
    app = app_factory(web_dir=web)
    seed_world(app)
    return app


def test_signed_out_page_has_the_form_with_its_test_ids_and_script(page_app) -> None:
    client = TestClient(page_app)
    page = client.get("/")
    assert page.status_code == 200
    assert 'id="early-signin"' in page.text
    for test_id in SPEC_IDS:
        assert f'data-testid="{test_id}"' in page.text
    assert '<script type="module" src="/static/signin-early.js">' in page.text
    assert "Cookie" in page.headers["vary"]
    script = client.get("/static/signin-early.js")
    assert script.status_code == 200 and "/api/session" in script.text
    assert "javascript" in script.headers["content-type"]


def test_with_a_session_cookie_the_form_is_not_in_the_page(page_app) -> None:
    client = sign_in(TestClient(page_app), "alice")
    page = client.get("/")
    assert page.status_code == 200
    assert "early-signin" not in page.text and "login-username" not in page.text
    assert 'id="app"' in page.text and "/static/main.py" in page.text  # the app still boots
    # the note list and last note before Python (web/static/workspace-early.js)
    assert '<script type="module" src="/static/workspace-early.js">' in page.text
    assert "Cookie" in page.headers["vary"]


def test_each_page_revalidates_under_its_own_etag(page_app) -> None:
    signed_out = TestClient(page_app)
    signed_in = sign_in(TestClient(page_app), "alice")
    out_tag = signed_out.get("/").headers["etag"]
    in_tag = signed_in.get("/").headers["etag"]
    assert out_tag != in_tag
    assert signed_out.get("/", headers={"If-None-Match": out_tag}).status_code == 304
    assert signed_in.get("/", headers={"If-None-Match": in_tag}).status_code == 304
    # A cached signed-out page is not reused once signed in, nor the reverse.
    assert signed_in.get("/", headers={"If-None-Match": out_tag}).status_code == 200
    assert signed_out.get("/", headers={"If-None-Match": in_tag}).status_code == 200


def test_the_form_posts_the_json_the_sign_in_endpoint_takes(page_app) -> None:
    """What signin-early.js sends: wrong words come back as a sentence, right ones sign in."""
    client = TestClient(page_app)
    wrong = client.post("/api/session", json={"username": "alice", "password": "nope"})
    assert wrong.status_code == 401 and wrong.json()["detail"]
    assert "not correct" in wrong.json()["detail"]
    sign_in(client, "alice")
    assert "early-signin" not in client.get("/").text


def test_a_signed_in_main_window_gets_the_runtime_preloads_inert_and_a_popout_live(
    page_app,
) -> None:
    """The main window's early note view asks for its note before the 7 MB of runtime
    (web/static/workspace-early.js starts them from the template); a pop-out, whose runtime
    is in the HTTP cache already, and a signed-out visit preload at once."""
    signed_in = sign_in(TestClient(page_app), "alice")
    main = signed_in.get("/").text
    templates = re.findall(r'<template class="runtime-preloads">(.*?)</template>', main, re.DOTALL)
    held = "".join(templates)
    assert "pyodide.snapshot" in held and "pyodide.asm.wasm" in held
    assert '<script type="module" src="/vendor/' in held  # the editor module, once the note is in
    outside = main
    for template in templates:
        outside = outside.replace(template, "")
    assert "pyodide.snapshot" not in outside and "pyodide.asm.wasm" not in outside
    assert "editor.js" not in outside
    assert 'rel="preload" href="/static/main.py"' in outside  # small, needed first by PyScript

    popout = signed_in.get("/", params={"popout": "inbox", "frame": "f1", "ws": "personal"})
    signed_out = TestClient(page_app).get("/")
    for page in (popout, signed_out):
        assert '<template class="runtime-preloads">' not in page.text
        assert re.search(r'<link rel="preload" href="[^"]*/pyodide\.snapshot"', page.text)
    assert "early-signin" not in popout.text
    assert len({main, popout.text, signed_out.text}) == 3
    tags = {signed_in.get("/").headers["etag"], popout.headers["etag"], signed_out.headers["etag"]}
    assert len(tags) == 3


def test_the_workspace_is_preloaded_for_a_signed_in_window_only(page_app) -> None:
    """A sign-in page has no use for CodeMirror (web/editor/view.js) or the workspace's Python
    (/py/workspace.zip): neither is named there, and both are fetched once the person starts
    signing in. A signed-in main window preloads CodeMirror with the rest of the runtime, from
    its template, a pop-out at once, and the interpreter loader fetches the workspace's
    Python for both. Their boot screen counts those bytes too."""
    view = re.compile(r'<link rel="modulepreload" href="[^"]*/editor/view\.js"')
    facade = re.compile(r'<script type="module" src="[^"]*/editor/editor\.js">')
    signed_out = TestClient(page_app).get("/").text
    assert not view.search(signed_out) and "view.js" not in signed_out
    assert "workspace.zip" not in signed_out
    assert facade.search(signed_out)  # the key filters, and the fetch on the first keystroke
    signed_in = sign_in(TestClient(page_app), "alice")
    main = signed_in.get("/").text
    templates = r'<template class="runtime-preloads">(.*?)</template>'
    held = "".join(re.findall(templates, main, re.DOTALL))
    assert view.search(held) and facade.search(held)
    popout = signed_in.get("/", params={"popout": "inbox", "frame": "f1", "ws": "personal"}).text
    assert view.search(popout) and facade.search(popout)
    totals = [int(re.search(r'data-runtime-bytes="(\d+)"', page)[1]) for page in (signed_out, main)]
    assert totals[0] < totals[1]


def test_the_micropython_config_turns_off_what_pyscript_json_turns_off(page_app) -> None:
    # PyScript loads plugins per script type, each from its own config: the page's one list
    # (static/pyscript.json) is copied into the <mpy-config>, for every kind of window.
    client = TestClient(page_app)
    plugins = client.get("/static/pyscript.json").json()["plugins"]
    assert plugins and all(name.startswith("!") for name in plugins)
    pages = [client.get("/").text]
    sign_in(client, "alice")
    pages += [client.get("/").text, client.get("/?popout=1").text]
    for page in pages:
        found = re.findall(r"<mpy-config hidden>(.*?)</mpy-config>", page)
        assert [json.loads(text) for text in found] == [{"plugins": plugins}]
