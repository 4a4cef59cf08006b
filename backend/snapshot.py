"""Refuses a stale Pyodide memory snapshot: its recorded inputs must match what is served now."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from backend.delivery.runtime import package_files


class StaleSnapshot(RuntimeError):
    """web/vendor/snapshot no longer matches the runtime or the packages it was made from."""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _package_files(name: str) -> dict[str, str]:
    try:
        files = package_files(name)  # the rule web/snapshot.mjs used, from the same function
    except RuntimeError as missing:
        raise StaleSnapshot(str(missing)) from None
    return {key: _sha(path) for key, path in files.items()}


def check_snapshot(vendor: Path) -> None:
    """Raise StaleSnapshot unless vendor/snapshot was built from exactly these inputs.

    The inputs (web/snapshot.mjs writes them to manifest.json) are the vendored Pyodide files
    and the Python packages imported into the snapshot; a mismatch means the snapshot would
    restore a memory image of another build, so the server does not start with it. The page
    unmasks the snapshot before restoring it (web/static/snapshot-mask.mjs), so one built
    before masking, whose manifest has no `mask`, is refused too.
    """
    manifest_path = vendor / "snapshot" / "manifest.json"
    hint = "rebuild it: node web/build.mjs (or ./dev setup)"
    if not manifest_path.is_file():
        raise StaleSnapshot(f"{manifest_path} is missing; {hint}")
    manifest = json.loads(manifest_path.read_text())
    snapshot = vendor / "snapshot" / manifest["file"]
    if not snapshot.is_file() or _sha(snapshot) != manifest["sha256"]:
        raise StaleSnapshot(f"{snapshot} is missing or not the one its manifest names; {hint}")
    if not isinstance(manifest.get("mask"), dict) or manifest["mask"].get("bytes", 0) <= 0:
        raise StaleSnapshot(f"{snapshot} is not masked, as the page expects; {hint}")
    runtime = {name: _sha(vendor / "pyodide" / name) for name in manifest["inputs"]["runtime"]}
    python: dict[str, str] = {}
    for package in sorted({name.split("/", 1)[0] for name in manifest["inputs"]["python"]}):
        python |= _package_files(package)
    stale = sorted(
        name
        for name, digest in (runtime | python).items()
        if (manifest["inputs"]["runtime"] | manifest["inputs"]["python"]).get(name) != digest
    )
    stale += sorted(set(manifest["inputs"]["python"]) - set(python))
    if stale:
        raise StaleSnapshot(
            f"the Pyodide snapshot is stale ({', '.join(stale[:5])} changed); {hint}"
        )
