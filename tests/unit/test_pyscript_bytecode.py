"""PyScript's own package ships as bytecode in the bundle, used only while its source matches."""

import io
import sys
import zipfile
from pathlib import Path

import pytest

from backend.delivery.runtime import (
    CHECKOUT_WEB,
    PYSCRIPT_BYTECODE_ZIP,
    read_bytecode,
    read_members,
    with_members,
)
from backend.delivery.web import _runtime
from tests.unit.bytecode_helpers import checked_pyc, import_in, zip_of

TAG = sys.implementation.cache_tag
WRITTEN = "VALUE = 'from source'\n"  # what PyScript writes into the working directory
PYC = f"pyscript/__pycache__/__init__.{TAG}.pyc"


def _pyc(source: str, *, runs: str) -> bytes:
    return checked_pyc(source.encode(), runs=runs, filename="pyscript/__init__.py")


def _boot(tmp_path: Path, bundle: bytes, written: str) -> str:
    """What a page does: unpack the bundle, then PyScript writes its sources and imports them."""
    zipfile.ZipFile(io.BytesIO(bundle)).extractall(tmp_path)
    (tmp_path / "pyscript").mkdir(exist_ok=True)
    (tmp_path / "pyscript" / "__init__.py").write_text(written, encoding="utf-8")
    return import_in(tmp_path, "pyscript")


def test_the_bundle_gets_the_members_after_its_own_and_keeps_a_member_it_has():
    bundle = zip_of({"app/__init__.py": b"", "pyscript/x.txt": b"bundle's"})
    served = with_members(bundle, {"pyscript/x.txt": b"other", PYC: b"pyc"})
    archive = zipfile.ZipFile(io.BytesIO(served))
    assert archive.namelist() == ["app/__init__.py", "pyscript/x.txt", PYC]
    assert archive.read("pyscript/x.txt") == b"bundle's"
    assert with_members(bundle, {}) == bundle


def test_a_pyc_matching_what_pyscript_writes_is_the_one_imported(tmp_path):
    pyc = _pyc(WRITTEN, runs="VALUE = 'from bytecode'")
    assert _boot(tmp_path, with_members(zip_of({}), {PYC: pyc}), WRITTEN) == "from bytecode"


def test_after_a_pyscript_update_its_new_source_runs_instead(tmp_path):
    pyc = _pyc(WRITTEN, runs="VALUE = 'from bytecode'")
    updated = "VALUE = 'updated'\n"
    assert _boot(tmp_path, with_members(zip_of({}), {PYC: pyc}), updated) == "updated"


def test_an_older_build_without_the_file_serves_the_bundle_as_it_was(tmp_path):
    assert read_members(tmp_path / PYSCRIPT_BYTECODE_ZIP) == {}


def test_the_built_pyscript_bytecode_reaches_the_served_bundle():
    """web/vendor holds a .pyc for every module of PyScript's package, for the page's CPython."""
    vendor = CHECKOUT_WEB / "vendor"
    members = read_members(vendor / PYSCRIPT_BYTECODE_ZIP)
    compiled = read_bytecode(vendor)
    if not members or compiled is None:
        pytest.fail(f"web/vendor/{PYSCRIPT_BYTECODE_ZIP} is missing: run ./dev setup")
    tag, _ = compiled
    assert f"pyscript/__pycache__/__init__.{tag}.pyc" in members
    assert all(name.startswith("pyscript/__pycache__/") for name in members)
    asset, _ = _runtime(CHECKOUT_WEB).assets["/py/app.zip"]
    served = zipfile.ZipFile(io.BytesIO(asset.bodies[None])).namelist()  # type: ignore[arg-type]
    assert set(members) <= set(served)
