"""The runtime is served from compressed copies, chosen by Accept-Encoding, under hashed URLs."""

import json
import re
from pathlib import Path

import pytest

from backend.delivery.assets import (
    RuntimeNotCompressed,
    add_bundle,
    choose_encoding,
    load_vendor,
)
from backend.delivery.runtime import CHECKOUT_WEB
from backend.delivery.web import _naming_file, _runtime

BOTH = ("br", "gzip")


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        ("gzip, deflate, br, zstd", "br"),  # Chromium's
        ("gzip, deflate", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("gzip;q=0, br;q=0", None),
        ("identity", None),
        ("", None),
        (None, None),
        ("*", "br"),
        ("*, br;q=0", "gzip"),
        ("GZIP", "gzip"),
        ("br;q=abc, gzip", "gzip"),  # a malformed weight refuses that coding, not the request
    ],
)
def test_the_encoding_follows_the_accept_encoding_header(header, chosen):
    assert choose_encoding(header, BOTH) == chosen


def test_only_an_offered_encoding_is_chosen():
    assert choose_encoding("br, gzip", ["gzip"]) == "gzip"
    assert choose_encoding("br", ["gzip"]) is None


def _vendor(tmp_path: Path, names: dict[str, bytes]) -> Path:
    """A vendor folder as web/compress.mjs leaves it (fake compressed bodies of known size)."""
    files = {}
    for name, data in names.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.with_name(path.name + ".br").write_bytes(b"b" * 3)
        path.with_name(path.name + ".gz").write_bytes(b"g" * 4)
        files[name] = {"sha256": f"{len(data):064x}", "bytes": len(data), "br": 3, "gzip": 4}
    (tmp_path / "files.json").write_text(
        json.dumps(
            {
                "encodings": {"br": ".br", "gzip": ".gz"},
                "not_served": ["files.json"],
                "files": files,
            }
        )
    )
    return tmp_path


def test_a_runtime_file_without_a_compressed_copy_stops_the_server(tmp_path):
    vendor = _vendor(tmp_path, {"pyodide/pyodide.mjs": b"export {}", "editor.js": b"x"})
    load_vendor(vendor)  # complete: accepted
    (vendor / "pyodide" / "new.wasm").write_bytes(b"\0asm")  # added after the build
    with pytest.raises(RuntimeNotCompressed, match="pyodide/new.wasm"):
        load_vendor(vendor)


def test_a_missing_or_other_compressed_copy_stops_the_server(tmp_path):
    vendor = _vendor(tmp_path, {"editor.js": b"x"})
    (vendor / "editor.js.gz").write_bytes(b"another build")
    with pytest.raises(RuntimeNotCompressed, match=r"editor.js.gz"):
        load_vendor(vendor)
    (vendor / "editor.js.gz").unlink()
    with pytest.raises(RuntimeNotCompressed, match=r"editor.js.gz"):
        load_vendor(vendor)


def test_urls_carry_a_hash_of_their_group_and_page_files_are_rewritten(tmp_path):
    vendor = _vendor(
        tmp_path, {"pyodide/pyodide.mjs": b"a", "pyodide/pyodide.asm.wasm": b"b", "editor.js": b"c"}
    )
    runtime = load_vendor(vendor)
    add_bundle(runtime, "/py/app.zip", b"PK zip bytes", "application/zip")
    page = (
        '<link href="/vendor/pyodide/pyodide.asm.wasm"><script src="/vendor/editor.js">'
        '{"/py/app.zip": "./*"} "/vendor/pyodide/" /vendor/pyodide-lock'
    )
    rewritten = runtime.rewrite(page)
    pyodide = runtime.prefixes["/vendor/pyodide"]
    assert pyodide.startswith("/vendor/") and pyodide.endswith("/pyodide") and len(pyodide) > 20
    assert f'"{pyodide}/pyodide.asm.wasm"' in rewritten
    assert f'"{pyodide}/"' in rewritten
    assert f'"{runtime.prefixes["/vendor/editor.js"]}"' in rewritten
    assert f'"{runtime.prefixes["/py/app.zip"]}"' in rewritten
    assert "/vendor/pyodide-lock" in rewritten  # not a runtime URL: left alone
    for hashed, (_, immutable) in runtime.assets.items():
        assert immutable == (
            hashed.count("/") > 2
            and hashed not in ("/vendor/pyodide/pyodide.mjs", "/vendor/pyodide/pyodide.asm.wasm")
        ), hashed


def test_a_changed_file_changes_its_groups_url_only(tmp_path):
    one = load_vendor(_vendor(tmp_path / "a", {"pyodide/x.js": b"1", "editor.js": b"e"}))
    two = load_vendor(_vendor(tmp_path / "b", {"pyodide/x.js": b"22", "editor.js": b"e"}))
    assert one.prefixes["/vendor/pyodide"] != two.prefixes["/vendor/pyodide"]
    assert one.prefixes["/vendor/editor.js"] == two.prefixes["/vendor/editor.js"]


def test_the_bench_files_are_served_uncounted_and_may_be_left_out(tmp_path):
    names = {"pyodide/python_stdlib.zip": b"stubbed", "bench/python_stdlib.zip": b"full" * 100}
    runtime = load_vendor(_vendor(tmp_path, names))
    assert "/vendor/bench/python_stdlib.zip" in runtime.assets
    assert runtime.raw_bytes == len(b"stubbed")  # a first visit never fetches it
    for path in (tmp_path / "bench").iterdir():  # as in the wheel, which leaves them out
        path.unlink()
    (tmp_path / "bench").rmdir()
    runtime = load_vendor(tmp_path)
    assert "/vendor/bench/python_stdlib.zip" not in runtime.assets
    assert "/vendor/pyodide/python_stdlib.zip" in runtime.assets


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("pyodide/python_stdlib.zip", "pyodide/python_stdlib_rest.zip"),  # on import
        ("editor/editor.js", "editor/view.js"),  # CodeMirror: once a person types or signs in
    ],
)
def test_what_a_first_visit_fetches_later_is_served_but_not_counted(tmp_path, first, later):
    runtime = load_vendor(_vendor(tmp_path, {first: b"start", later: b"r" * 99}))
    rest = runtime.rewrite(f"/vendor/{later}")
    assert rest.startswith("/vendor/") and rest in runtime.assets  # hashed with its group
    assert runtime.rewrite(f"/vendor/{first}").rsplit("/", 1)[0] == rest.rsplit("/", 1)[0]
    assert runtime.raw_bytes == len(b"start")  # the boot screen's total leaves it out


def test_the_page_names_the_size_of_the_snapshot_it_preloads():
    # The loader hands Pyodide a buffer of this size before the snapshot has arrived, so it
    # must be the size of the very file the page's preload link fetches.
    runtime = _runtime(CHECKOUT_WEB)
    page = _naming_file(CHECKOUT_WEB / "index.html", runtime)[0].decode()
    size = int(re.search(r'data-snapshot-bytes="(\d+)"', page).group(1))
    url = re.search(r'href="(/vendor/[0-9a-f]{12}/snapshot/pyodide\.snapshot)"', page).group(1)
    plain = runtime.assets[url][0].bodies[None]
    assert isinstance(plain, Path) and plain.stat().st_size == size
