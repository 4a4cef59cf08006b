"""The stdlib zip splits in two, and the rest is fetched once, on the first import that needs it.

The split (backend/delivery/runtime.split_zip) and the finder the snapshot holds
(web/stdlib_rest.py) together, under CPython: an interpreter with only the start zip on its
path imports every module of the rest through the finder, fetching the rest once.
"""

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from backend.delivery.runtime import CHECKOUT_WEB, STUB_MARK, module_name, split_zip, stub_zip

MEMBERS = {
    "boot.py": b"VALUE = 'boot'\n",
    "snap.py": b"VALUE = 'in the snapshot'\n",
    "pkg/": b"",
    "pkg/__init__.py": b"VALUE = 'package'\n",
    "pkg/near.py": b"VALUE = 'near'\n",
    "pkg/far.py": b"VALUE = 'far'\n",
    "far/": b"",
    "far/__init__.py": b"from . import sub\nVALUE = sub.VALUE\n",
    "far/sub.py": b"VALUE = 'far sub'\n",
    "lone.py": b"import pkg.far\nVALUE = 'lone ' + pkg.far.VALUE\n",
    "data.txt": b"not a module\n",
}
KEEP = {"boot", "pkg", "pkg.near"}


def _split(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    path, rest = tmp_path / "stdlib.zip", tmp_path / "rest.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in MEMBERS.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 2, 3, 4, 6)), data)
    stub_zip(path, ["snap.py"])
    return path, rest, split_zip(path, rest, KEEP)


def test_only_modules_neither_kept_nor_stubbed_move_and_both_keep_the_order(tmp_path):
    path, rest, moved = _split(tmp_path)
    assert moved == ["pkg.far", "far", "far.sub", "lone"]
    with zipfile.ZipFile(path) as start, zipfile.ZipFile(rest) as away:
        assert start.namelist() == [
            "boot.py",
            "snap.py",
            "pkg/",
            "pkg/__init__.py",
            "pkg/near.py",
            "data.txt",
        ]
        # far/ goes with its files: left alone it would read as an empty namespace package
        assert away.namelist() == ["pkg/far.py", "far/", "far/__init__.py", "far/sub.py", "lone.py"]
        assert start.read("snap.py").startswith(STUB_MARK.encode())
        assert away.read("far/sub.py") == MEMBERS["far/sub.py"]
        infos = start.infolist() + away.infolist()
    assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)
    assert all(i.date_time == (2020, 1, 2, 3, 4, 6) for i in infos)


def test_a_zip_without_stubs_or_a_module_to_keep_that_it_lacks_is_refused(tmp_path):
    path = tmp_path / "stdlib.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("boot.py", b"")
    with pytest.raises(ValueError, match="holds no stubs"):
        split_zip(path, tmp_path / "rest.zip", {"boot"})
    stub_zip(path, ["boot.py"])
    with pytest.raises(ValueError, match="no module 'nothere' to keep"):
        split_zip(path, tmp_path / "rest.zip", {"nothere"})


def test_module_names_of_members():
    assert module_name("email/mime/text.py") == "email.mime.text"
    assert module_name("email/__init__.py") == "email"
    assert module_name("email/") is None and module_name("data.txt") is None


# An interpreter with only the start zip on its path and the finder last on sys.meta_path;
# its fetch copies the rest zip and records which module asked for it.
CHILD = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("stdlib_rest", {finder!r})
stdlib_rest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stdlib_rest)
sys.path.insert(0, {start!r})
asked = []
def fetch(name):
    asked.append(name)
    return open({rest!r}, "rb").read()
finder = stdlib_rest.RestFinder({names!r}, {target!r}, fetch)
sys.meta_path.append(finder)
{code}
print(json.dumps({{"asked": asked, "served": finder.served, "out": out}}))
"""


def _run(tmp_path: Path, code: str) -> dict:
    start, rest, moved = _split(tmp_path)
    child = CHILD.format(
        finder=str(CHECKOUT_WEB / "stdlib_rest.py"),
        start=str(start),
        rest=str(rest),
        names=moved,
        target=str(tmp_path / "fetched.zip"),
        code=code,
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", child], capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_modules_of_the_rest_import_as_before_and_the_rest_is_fetched_once(tmp_path):
    result = _run(
        tmp_path,
        "import boot, lone, far, pkg.near\n"
        "out = [boot.VALUE, lone.VALUE, far.VALUE, pkg.near.VALUE]",
    )
    assert result["out"] == ["boot", "lone far", "far sub", "near"]
    assert result["asked"] == ["lone"]  # one fetch, for the first module that needed it
    # far.sub is found inside the package's own folder of the rest, without the finder
    assert result["served"] == ["lone", "pkg.far", "far"]


def test_the_start_zip_alone_fetches_nothing_and_unknown_names_still_fail(tmp_path):
    code = (
        "import boot, pkg.near\n"
        "try:\n    import nothere\nexcept ModuleNotFoundError as e:\n    out = str(e)\n"
    )
    result = _run(tmp_path, code)
    assert result == {"asked": [], "served": [], "out": "No module named 'nothere'"}


def test_a_failed_fetch_fails_that_import_clearly_and_the_next_import_fetches_again(tmp_path):
    code = (
        "real = finder.fetch\n"
        "def down(name):\n    raise OSError('503 from the server')\n"
        "finder.fetch = down\n"
        "try:\n    import lone\nexcept ImportError as e:\n    out = [str(e)]\n"
        "finder.fetch = real\n"
        "import lone\nout.append(lone.VALUE)\n"
    )
    result = _run(tmp_path, code)
    assert result["out"] == [
        "lone: the rest of the standard library could not be fetched (503 from the server)",
        "lone far",
    ]
    assert result["asked"] == ["lone"]
