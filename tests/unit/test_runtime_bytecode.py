"""The page's Python ships with the build's bytecode, only for sources it was compiled from."""

import hashlib
import io
import sys
import zipfile
from pathlib import Path

import pytest

from backend.delivery.runtime import CHECKOUT_WEB, python_bundle, read_bytecode, with_bytecode
from tests.unit.bytecode_helpers import checked_pyc, import_in, zip_of

TAG = sys.implementation.cache_tag
SOURCE = b"VALUE = 'from source'\n"


def _pyc(source: bytes, *, runs: str) -> bytes:
    return checked_pyc(source, runs=runs, filename="pkg/mod.py")


def _import_from(tmp_path: Path, bundle: bytes) -> str:
    zipfile.ZipFile(io.BytesIO(bundle)).extractall(tmp_path)
    return import_in(tmp_path, "pkg.mod")


def test_a_compiled_source_gets_its_pyc_where_the_import_system_reads_it(tmp_path):
    table = {hashlib.sha256(SOURCE).hexdigest(): _pyc(SOURCE, runs="VALUE = 'from bytecode'")}
    bundle = with_bytecode(zip_of({"pkg/__init__.py": b"", "pkg/mod.py": SOURCE}), TAG, table)
    names = zipfile.ZipFile(io.BytesIO(bundle)).namelist()
    assert names == ["pkg/__init__.py", "pkg/mod.py", f"pkg/__pycache__/mod.{TAG}.pyc"]
    assert _import_from(tmp_path, bundle) == "from bytecode"


def test_a_source_edited_since_the_build_gets_no_pyc_and_runs_from_source(tmp_path):
    table = {hashlib.sha256(SOURCE).hexdigest(): _pyc(SOURCE, runs="VALUE = 'from bytecode'")}
    edited = b"VALUE = 'edited'\n"
    bundle = with_bytecode(zip_of({"pkg/__init__.py": b"", "pkg/mod.py": edited}), TAG, table)
    assert not [n for n in zipfile.ZipFile(io.BytesIO(bundle)).namelist() if ".pyc" in n]
    assert _import_from(tmp_path, bundle) == "edited"


def test_the_built_bytecode_reaches_the_served_bundle():
    """web/vendor/bytecode.zip is Pyodide's, and the server's bundle carries .pyc files from it.

    Not every module: one edited since the last build is compiled in the page instead.
    """
    compiled = read_bytecode(CHECKOUT_WEB / "vendor")
    if compiled is None:
        pytest.fail("web/vendor/bytecode.zip is missing: run ./dev setup")
    tag, table = compiled
    assert tag.startswith("cpython-") and tag != TAG  # the page's interpreter, not the server's
    served = with_bytecode(python_bundle(CHECKOUT_WEB), tag, table)
    names = zipfile.ZipFile(io.BytesIO(served)).namelist()
    assert any(name.endswith(f".{tag}.pyc") for name in names)
