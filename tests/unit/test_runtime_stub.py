"""The stdlib zip's members for the snapshot's modules become stubs that fail clearly when run."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from backend.delivery.runtime import STUB_MARK, stub_zip

MEMBERS = {
    "kept.py": b"VALUE = 'kept'\n",
    "pkg/__init__.py": b"VALUE = 'package'\n",
    "pkg/stubbed.py": b"VALUE = 'the real source'\n" * 50,
}


def _zip(tmp_path: Path) -> Path:
    path = tmp_path / "stdlib.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in MEMBERS.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 2, 3, 4, 6))
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return path


def _run(path: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(path)!r}); {code}"],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_only_the_named_members_change_and_the_order_stays(tmp_path):
    path = _zip(tmp_path)
    stub_zip(path, ["pkg/stubbed.py"])
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        assert [i.filename for i in infos] == list(MEMBERS)
        assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)
        assert all(i.date_time == (2020, 1, 2, 3, 4, 6) for i in infos)
        assert archive.read("kept.py") == MEMBERS["kept.py"]
        assert archive.read("pkg/__init__.py") == MEMBERS["pkg/__init__.py"]
        stub = archive.read("pkg/stubbed.py")
    assert stub.startswith(STUB_MARK.encode()) and len(stub) < 200


def test_a_stubbed_module_fails_clearly_when_imported_and_others_still_import(tmp_path):
    path = _zip(tmp_path)
    stub_zip(path, ["pkg/stubbed.py"])
    ok = _run(path, "import kept, pkg; print(kept.VALUE, pkg.VALUE)")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.split() == ["kept", "package"]
    failed = _run(path, "import pkg.stubbed")
    assert failed.returncode == 1
    assert "ImportError: pkg/stubbed.py: its module is imported in the Pyodide snapshot" in (
        failed.stderr
    )


def test_a_zip_already_stubbed_or_a_missing_member_is_refused(tmp_path):
    path = _zip(tmp_path)
    with pytest.raises(ValueError, match="no member 'nothere.py'"):
        stub_zip(path, ["nothere.py"])
    stub_zip(path, ["kept.py"])
    with pytest.raises(ValueError, match="already holds stubs"):
        stub_zip(path, ["pkg/stubbed.py"])
