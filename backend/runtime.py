"""The page's runtime files: the one list (web/runtime.json) and the rules build and server share.

web/build.mjs and web/snapshot.mjs read the same JSON file and call this module for the two
rules that must not differ between the build and the server: which files of a Python package
ship to the page, and how a zip is stored so that Brotli compresses across its members.
`python -m backend.runtime package-files NAME...` prints the first as JSON;
`python -m backend.runtime store-zip PATH` applies the second in place.
"""

from __future__ import annotations

import json
import sys
import zipfile
from importlib.util import find_spec
from pathlib import Path

# Only sources: bytecode is made in the page, tests and data files are not imported there.
PACKAGE_SUFFIXES = (".py", ".typed")


def package_root(name: str) -> Path:
    """The installed folder of the pure-Python package `name` (RuntimeError when missing)."""
    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"{name} is not installed; run ./dev setup")
    return Path(next(iter(spec.submodule_search_locations)))


def package_files(name: str, root: Path | None = None) -> dict[str, Path]:
    """Every file of a package the page gets, keyed "name/relative/path" (sorted)."""
    root = root or package_root(name)
    return {
        f"{name}/{path.relative_to(root).as_posix()}": path
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in PACKAGE_SUFFIXES
    }


def store_zip(path: Path) -> None:
    """Rewrite a zip with its members stored, not deflated, in the same order and dates.

    A deflated member is noise to Brotli; stored, the whole archive compresses as one text
    (Pyodide's standard library: 2.48 MB deflated, 1.6 MB stored then Brotli'd). Readers
    (zipimport, PyScript's unpacking) take both forms.
    """
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    if all(info.compress_type == zipfile.ZIP_STORED for info, _ in members):
        return
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as target:
        for info, data in members:
            info.compress_type = zipfile.ZIP_STORED
            target.writestr(info, data)
    tmp.replace(path)


def main(argv: list[str]) -> int:
    command, *args = argv
    if command == "package-files":
        files = {n: str(p) for name in args for n, p in package_files(name).items()}
        print(json.dumps(files))
    elif command == "store-zip":
        for arg in args:
            store_zip(Path(arg))
    else:
        raise SystemExit(f"unknown command {command!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
