"""Shared by the bytecode tests: a zip from members, a checked .pyc that shows which code ran,
and an import run in a fresh interpreter the way a page imports from its unpacked bundle."""

import importlib.util
import io
import subprocess
import sys
import zipfile
from importlib._bootstrap_external import _code_to_hash_pyc  # type: ignore[attr-defined]
from pathlib import Path


def zip_of(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.date_time = (2020, 1, 1, 0, 0, 0)
            archive.writestr(info, data)
    return out.getvalue()


def checked_pyc(source: bytes, *, runs: str, filename: str) -> bytes:
    """A checked .pyc carrying `source`'s hash but the code of `runs`: shows which one ran."""
    code = compile(runs, filename, "exec", dont_inherit=True)
    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=True))


def import_in(folder: Path, module: str) -> str:
    """`module.VALUE`, imported by a fresh interpreter working in `folder` (no bytecode written)."""
    done = subprocess.run(
        [sys.executable, "-B", "-c", f"import {module}; print({module}.VALUE)"],
        check=False,
        cwd=folder,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()
