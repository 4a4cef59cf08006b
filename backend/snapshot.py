"""Refuses a stale Pyodide memory snapshot: its recorded inputs must match what is served now."""

from __future__ import annotations

import hashlib
import json
from importlib.util import find_spec
from pathlib import Path


class StaleSnapshot(RuntimeError):
    """web/vendor/snapshot no longer matches the runtime or the packages it was made from."""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _package_files(name: str) -> dict[str, str]:
    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise StaleSnapshot(f"{name} is not installed; run ./dev setup")
    root = Path(next(iter(spec.submodule_search_locations)))
    return {f"{name}/{p.relative_to(root).as_posix()}": _sha(p) for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and p.suffix in (".py", ".typed")}


def check_snapshot(vendor: Path) -> None:
    """Raise StaleSnapshot unless vendor/snapshot was built from exactly these inputs.

    The inputs (web/snapshot.mjs writes them to manifest.json) are the vendored Pyodide files
    and the Python packages imported into the snapshot; a mismatch means the snapshot would
    restore a memory image of another build, so the server does not start with it.
    """
    manifest_path = vendor / "snapshot" / "manifest.json"
    hint = "rebuild it: node web/build.mjs (or ./dev setup)"
    if not manifest_path.is_file():
        raise StaleSnapshot(f"{manifest_path} is missing; {hint}")
    manifest = json.loads(manifest_path.read_text())
    snapshot = vendor / "snapshot" / manifest["file"]
    if not snapshot.is_file() or _sha(snapshot) != manifest["sha256"]:
        raise StaleSnapshot(f"{snapshot} is missing or not the one its manifest names; {hint}")
    runtime = {name: _sha(vendor / "pyodide" / name) for name in manifest["inputs"]["runtime"]}
    python: dict[str, str] = {}
    for package in sorted({name.split("/", 1)[0] for name in manifest["inputs"]["python"]}):
        python |= _package_files(package)
    stale = sorted(name for name, digest in (runtime | python).items()
                   if (manifest["inputs"]["runtime"] | manifest["inputs"]["python"]).get(name)
                   != digest)
    stale += sorted(set(manifest["inputs"]["python"]) - set(python))
    if stale:
        raise StaleSnapshot(f"the Pyodide snapshot is stale ({', '.join(stale[:5])} changed); "
                            f"{hint}")
