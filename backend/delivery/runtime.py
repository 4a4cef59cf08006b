"""The page's runtime files: the one list (web/runtime.json) and the rules build and server share.

web/build.mjs and web/snapshot.mjs read the same JSON file and call this module for the two
rules that must not differ between the build and the server: which files of a Python package
ship to the page, and how a zip is stored so that Brotli compresses across its members.
`python -m backend.delivery.runtime package-files NAME...` prints the first as JSON;
`python -m backend.delivery.runtime store-zip PATH` applies the second in place.

The standard-library zip served beside the snapshot carries, for every module the snapshot
already holds imported, a two-line stub instead of its source (`stub_zip`, called by
web/snapshot.mjs, which knows which modules those are): the page never reads them, since
restoring the snapshot restores the modules. A stub raises ImportError naming itself, so a
re-import (importlib.reload, a module dropped from sys.modules) fails clearly instead of
running nothing; a traceback through such a module shows no source line. Every other module
no window imports at start then leaves that zip for python_stdlib_rest.zip (`split_zip`),
which the page fetches only when Python imports one of them (web/stdlib_rest.py).

The page's Python also ships as bytecode: web/snapshot.mjs compiles every module of the
bundle with the page's own interpreter (Pyodide's CPython, not the server's) into
vendor/bytecode.zip, one checked hash-based .pyc per source, named by the source's SHA-256.
`with_bytecode` replaces in the bundle each member whose source is exactly the one compiled by
its .pyc, which the page imports without a source; a module edited since the build simply has
none and ships as source, compiled in the page. The sources of modules the snapshot already
holds imported (markdown-it's) leave the bundle altogether (`without_held`): the page never
reads them.
`python -m backend.delivery.runtime bundle PATH` writes the bundle the server would serve.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import zipfile
from functools import cache
from importlib.util import find_spec
from pathlib import Path

import ambient
from backend.delivery import import_order

# Only sources: bytecode is made in the page, tests and data files are not imported there.
PACKAGE_SUFFIXES = (".py", ".typed")

# The page's folder: the copy an installed wheel carries (setup.py puts it here), else the
# checkout's web/. ANA_WEB_DIR overrides both.
PACKAGED_WEB = Path(__file__).resolve().parents[1] / "webroot"
CHECKOUT_WEB = Path(__file__).resolve().parents[2] / "web"


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
    (zipimport, the page's loader) take both forms.
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


STUB_MARK = "# ana-stub"  # first bytes of every stub: a zip holding one is not a full stdlib


def stub_source(member: str) -> bytes:
    """The stub that replaces the source of `member`: a marker, then raising ImportError."""
    reason = "its module is imported in the Pyodide snapshot, the source was left out"
    return f"{STUB_MARK}\nraise ImportError({f'{member}: {reason}'!r})\n".encode()


def stub_zip(path: Path, members: list[str]) -> None:
    """Rewrite a zip with the named members replaced by stubs, stored, in the same order.

    Used on the standard-library zip for the modules imported into the snapshot (see the
    module docstring); every other member keeps its bytes, so later imports still work.
    """
    wanted = set(members)
    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info)) for info in source.infolist()]
    missing = wanted - {info.filename for info, _ in entries}
    if missing:
        raise ValueError(f"{path.name} has no member {min(missing)!r}")
    if any(data.startswith(STUB_MARK.encode()) for _, data in entries):
        raise ValueError(f"{path} already holds stubs; start from the full zip")
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as target:
        for info, data in entries:
            info.compress_type = zipfile.ZIP_STORED
            target.writestr(info, stub_source(info.filename) if info.filename in wanted else data)
    tmp.replace(path)


def module_name(member: str) -> str | None:
    """The module a zip member holds ("email/mime/text.py" -> "email.mime.text"), or None."""
    if not member.endswith(".py"):
        return None
    name = member.removesuffix(".py").removesuffix("/__init__")
    return name.replace("/", ".")


def split_zip(path: Path, rest: Path, keep: set[str]) -> list[str]:
    """Move the sources no window needs at start out of a stub-holding zip, into `rest`.

    Called by web/snapshot.mjs after stub_zip: every `.py` member that is not a stub and whose
    module is not in `keep` (the modules a window imports from the zip after the snapshot is
    restored, web/runtime.json's `stdlib_after_snapshot`) goes to `rest`, stored, in the
    same order; stubs and data files stay, and a folder stays where any of its files does.
    Returns the moved modules' names, which the snapshot's on-demand finder
    (web/stdlib_rest.py) answers for.
    """
    with zipfile.ZipFile(path) as source:
        entries = [(info, source.read(info)) for info in source.infolist()]
    if not any(data.startswith(STUB_MARK.encode()) for _, data in entries):
        raise ValueError(f"{path} holds no stubs; stub it first")
    known = {module_name(info.filename) for info, _ in entries}
    if unknown := sorted(keep - known):
        raise ValueError(f"{path.name} has no module {unknown[0]!r} to keep")
    stays = {
        info.filename
        for info, data in entries
        if not info.is_dir()
        and (module_name(info.filename) in keep | {None} or data.startswith(STUB_MARK.encode()))
    }
    # A folder left without its files would read as an empty namespace package that shadows
    # the real one in the rest: it goes where its files go.
    stays |= {
        info.filename
        for info, _ in entries
        if info.is_dir() and any(name.startswith(info.filename) for name in stays)
    }
    moved: list[str] = []
    tmp = path.with_suffix(".tmp")
    with (
        zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as kept,
        zipfile.ZipFile(rest, "w", zipfile.ZIP_STORED) as away,
    ):
        for info, data in entries:
            info.compress_type = zipfile.ZIP_STORED
            (kept if info.filename in stays else away).writestr(info, data)
            if info.filename not in stays and (name := module_name(info.filename)):
                moved.append(name)
    tmp.replace(path)
    return moved


BYTECODE_ZIP = "bytecode.zip"  # in web/vendor, beside the runtime; read by the server only
CACHE_TAG_MEMBER = "cache_tag"  # its member naming the interpreter, e.g. "cpython-314"


def read_bytecode(vendor: Path) -> tuple[str, dict[str, bytes]] | None:
    """(cache tag, {source SHA-256: .pyc}) from vendor/bytecode.zip, or None without one."""
    path = vendor / BYTECODE_ZIP
    if not path.is_file():
        return None
    with zipfile.ZipFile(path) as archive:
        tag = archive.read(CACHE_TAG_MEMBER).decode()
        table = {n: archive.read(n) for n in archive.namelist() if n != CACHE_TAG_MEMBER}
    return tag, table


def with_bytecode(bundle: bytes, table: dict[str, bytes]) -> bytes:
    """The bundle (a zip) with every source compiled at build replaced by its .pyc.

    `pkg/mod.py` becomes `pkg/mod.pyc`, which the import system loads without a source (its
    sourceless loader): the page downloads, writes and hashes no source it would not run. A
    traceback through such a module names its file and line, without the line's text.
    """
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(bundle)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            pyc = table.get(hashlib.sha256(data).hexdigest())
            if pyc is None or not info.filename.endswith(".py"):
                target.writestr(info, data)
                continue
            compiled = zipfile.ZipInfo(info.filename + "c")
            compiled.date_time = info.date_time
            target.writestr(compiled, pyc)
    return out.getvalue()


def split_bundle(bundle: bytes) -> tuple[bytes, bytes]:
    """The bundle (a zip) in two: what a window needs to start, and the modules of the import
    order's second list (`import_order.LATER_MEMBER`), which only a workspace imports.

    A sign-in page downloads only the first before it is ready (web/static/pyodide-snapshot.mjs
    fetches the second once the person starts signing in). The second is empty for a bundle
    without the list."""
    with zipfile.ZipFile(io.BytesIO(bundle)) as source:
        later: set[str] = set()
        if import_order.LATER_MEMBER in source.namelist():
            later = set(source.read(import_order.LATER_MEMBER).decode().split())
        start, workspace = io.BytesIO(), io.BytesIO()
        with zipfile.ZipFile(start, "w") as first, zipfile.ZipFile(workspace, "w") as second:
            for info in source.infolist():
                member = info.filename.removesuffix("c")  # a module's .pyc, named as its source
                target = second if module_name(member) in later else first
                target.writestr(info, source.read(info))
    return start.getvalue(), workspace.getvalue()


def read_held(vendor: Path) -> dict[str, str]:
    """{bundle member: SHA-256} of the sources the snapshot holds imported ({} without one).

    web/snapshot.mjs writes them into the snapshot's manifest as `held`, with the digest of
    each in its `inputs`: restoring the snapshot restores those modules, so the page never
    reads their files.
    """
    path = vendor / "snapshot" / "manifest.json"
    if not path.is_file():
        return {}
    manifest = json.loads(path.read_text())
    digests = manifest.get("inputs", {}).get("python", {})
    return {name: digests[name] for name in manifest.get("held", []) if name in digests}


def without_held(bundle: bytes, held: dict[str, str]) -> bytes:
    """The bundle (a zip) without each member `held` names, when its bytes are the ones held."""
    if not held:
        return bundle
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(bundle)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if held.get(info.filename) != hashlib.sha256(data).hexdigest():
                target.writestr(info, data)
    return out.getvalue()


# PyScript's own `pyscript` package compiled at build (web/pyscript_bytecode.mjs): members
# `pyscript/__pycache__/<module>.<tag>.pyc`, added to the bundle as they are. The page's
# loader writes the bundle before PyScript writes the package's sources beside them and
# imports it; each .pyc is checked against the source's hash there, so a PyScript update
# without a rebuild costs only the compile it saved.
PYSCRIPT_BYTECODE_ZIP = "pyscript-bytecode.zip"  # in web/vendor; read by the server only


def read_members(path: Path) -> dict[str, bytes]:
    """Every member of a zip, by name ({} when the file is missing: an older build)."""
    if not path.is_file():
        return {}
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def with_members(bundle: bytes, members: dict[str, bytes]) -> bytes:
    """The bundle (a zip) with `members` appended, unless it already has a member of that name."""
    if not members:
        return bundle
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(bundle)) as source, zipfile.ZipFile(out, "w") as target:
        names = set(source.namelist())
        for info in source.infolist():
            target.writestr(info, source.read(info))
        for name, data in sorted(members.items()):
            if name not in names:
                info = zipfile.ZipInfo(name)
                info.date_time = (2020, 1, 1, 0, 0, 0)
                target.writestr(info, data)
    return out.getvalue()


def page_dir(settings: object = None) -> Path:
    """The folder holding index.html, static/, vendor/ and app/ for these settings."""
    configured = getattr(settings, "web_dir", None)
    if configured:
        return Path(configured)
    return PACKAGED_WEB if (PACKAGED_WEB / "index.html").is_file() else CHECKOUT_WEB


@cache
def python_bundle(web_dir: Path | None = None) -> bytes:
    """Zip the page's Python: the pure core, the browser layer and markdown-it-py (pure Python).

    The interpreter loader (web/static/pyodide-snapshot.mjs) writes it into Python's working
    directory, so the page gets every module in one request and never needs micropip or a
    wheel index. The members are stored, not deflated: the served copy is Brotli or gzip over
    the whole zip. It also names, in `import_order.MEMBER` and `LATER_MEMBER`, the order the
    page imports the app's modules in (web/app/imports.py): those a window needs to be ready,
    then those its workspace needs.
    """
    files: dict[str, Path] = {}
    files |= package_files("ambient", Path(ambient.__file__).resolve().parent)
    files |= package_files("app", (web_dir or page_dir()) / "app")
    for package in ("markdown_it", "mdurl", "merge3"):
        files |= package_files(package, package_root(package))
    members = {name: path.read_bytes() for name, path in files.items()}
    if order := import_order.import_order(members):
        members[import_order.MEMBER] = "\n".join(order).encode()
        later = import_order.later_order(members, order)
        members[import_order.LATER_MEMBER] = "\n".join(later).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members.items():
            # A fixed timestamp keeps the zip (and its URL) identical across restarts.
            info = zipfile.ZipInfo(name)
            info.date_time = (2020, 1, 1, 0, 0, 0)
            archive.writestr(info, data)
    return buffer.getvalue()


def main(argv: list[str]) -> int:
    command, *args = argv
    if command == "package-files":
        files = {n: str(p) for name in args for n, p in package_files(name).items()}
        print(json.dumps(files))
    elif command == "store-zip":
        for arg in args:
            store_zip(Path(arg))
    elif command == "stub-zip":
        path, *members = args
        stub_zip(Path(path), members)
    elif command == "split-zip":
        path, rest, *keep = args
        print(json.dumps(split_zip(Path(path), Path(rest), set(keep))))
    elif command == "bundle":
        Path(args[0]).write_bytes(python_bundle())
    else:
        raise SystemExit(f"unknown command {command!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
