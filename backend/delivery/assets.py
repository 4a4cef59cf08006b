"""The page's runtime files: compressed once, served by content negotiation under hashed URLs.

web/compress.mjs compresses every file of web/vendor at build time (NAME.br, NAME.gz) and lists
it in vendor/files.json with its SHA-256 and sizes; the app's Python bundle is compressed once
when the server starts. Nothing is compressed per request. Each file is served at
`/vendor/<hash>/<name>`, where the hash covers its group (the first path segment: pyodide/,
snapshot/, pyscript/, editor/), because Pyodide and PyScript load their siblings relative to
their own URL; those URLs never change meaning, so they are cached for a year as immutable.
The plain `/vendor/<name>` stays for tools and baselines, revalidated on every use.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import mimetypes
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import brotli
from fastapi import Request, Response
from fastapi.responses import FileResponse

from backend.delivery.runtime import (
    PYSCRIPT_BYTECODE_ZIP,
    read_bytecode,
    read_held,
    read_members,
    split_bundle,
    with_bytecode,
    with_members,
    without_held,
)

IMMUTABLE = "public, max-age=31536000, immutable"
# The page's Python, made at start (add_python_bundles); the page names both URLs.
START_BUNDLE = "/py/app.zip"
WORKSPACE_BUNDLE = "/py/workspace.zip"
ZIP = "application/zip"
# vendor/bench/: what only the benchmarks load (the full standard library of the bare Pyodide
# baseline, whose served copy has stubs for the snapshot's modules). Served when present, not
# counted in a first visit's bytes, and left out of the wheel (setup.py, MANIFEST.in).
BENCH_GROUP = "bench"
# Not part of a first visit's bytes either: the standard library's rest, fetched only when
# Python imports a module no window needs at start (web/stdlib_rest.py).
ON_DEMAND = frozenset({"pyodide/python_stdlib_rest.zip"})
# What a window fetches before it starts only when it shows a workspace at once (signed in, or
# a pop-out); a sign-in page fetches it once the person starts signing in: CodeMirror
# (web/editor/editor.js) and, made at start, the workspace's Python (WORKSPACE_BUNDLE).
SIGNED_IN = frozenset({"editor/view.js"})
REVALIDATE = "no-cache"
PREFERENCE = ("br", "gzip")  # the smaller first, when the browser takes both
_BUNDLE_BROTLI_QUALITY = 7  # at start-up: 0.1 s for the bundle, a few KB above quality 11


class RuntimeNotCompressed(RuntimeError):
    """web/vendor lacks a compressed copy (or the table of them): rebuild it."""


def choose_encoding(accept_encoding: str | None, offered: Iterable[str]) -> str | None:
    """The encoding to send for this Accept-Encoding header, or None for the plain bytes.

    Follows RFC 9110 §12.5.3: a coding with q=0 is refused, `*` stands for any coding not
    named, and among the acceptable ones the server's preference (Brotli, then gzip) decides.
    """
    weights: dict[str, float] = {}
    for part in (accept_encoding or "").split(","):
        name, _, params = part.strip().partition(";")
        name = name.strip().lower()
        if not name:
            continue
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0  # a malformed weight refuses that coding, not the request
        weights[name] = q
    offered = set(offered)
    for coding in PREFERENCE:
        if coding in offered and weights.get(coding, weights.get("*", 0.0)) > 0:
            return coding
    return None


@dataclass(frozen=True)
class Asset:
    """One served file: its type, a strong validator, and one body per encoding (None: plain)."""

    media_type: str
    digest: str
    bodies: Mapping[str | None, Path | bytes] = field(default_factory=dict)

    def response(self, request: Request, *, immutable: bool) -> Response:
        encoding = choose_encoding(
            request.headers.get("accept-encoding"), [e for e in self.bodies if e]
        )
        etag = f'"{self.digest[:20]}{"-" + encoding if encoding else ""}"'
        headers = {
            "ETag": etag,
            "Vary": "Accept-Encoding",
            "Cache-Control": IMMUTABLE if immutable else REVALIDATE,
        }
        if encoding:
            headers["Content-Encoding"] = encoding
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        body = self.bodies[encoding]
        if isinstance(body, Path):
            return FileResponse(body, media_type=self.media_type, headers=headers)
        return Response(body, media_type=self.media_type, headers=headers)


def compressed_bodies(data: bytes) -> dict[str | None, bytes]:
    """Plain, Brotli and gzip bodies of bytes made at start-up (the app's Python bundle)."""
    return {
        None: data,
        "br": brotli.compress(data, quality=_BUNDLE_BROTLI_QUALITY),
        "gzip": gzip.compress(data, compresslevel=9, mtime=0),
    }


def _media_type(name: str) -> str:
    kind, _ = mimetypes.guess_type(name)
    if kind is None:
        return "application/octet-stream"
    return f"{kind}; charset=utf-8" if kind.startswith("text/") else kind


def group_of(name: str) -> str:
    """The part of a vendor path that shares one hashed URL prefix (see the module docstring)."""
    return name.split("/", 1)[0]


@dataclass
class Runtime:
    """Every runtime URL the server answers, and the hashed prefix of each logical one."""

    assets: dict[str, tuple[Asset, bool]] = field(default_factory=dict)  # url → (asset, immutable)
    prefixes: dict[str, str] = field(default_factory=dict)  # "/vendor/pyodide" → hashed
    raw_bytes: int = 0  # what a first visit downloads, before compression
    signed_in_bytes: int = 0  # what a signed-in window downloads at start besides
    sizes: dict[str, int] = field(default_factory=dict)  # logical url → bytes, before compression
    # The page's Python compiled at build (vendor/bytecode.zip): (cache tag, {source sha: pyc})
    bytecode: tuple[str, dict[str, bytes]] | None = None
    # PyScript's own package compiled at build (vendor/pyscript-bytecode.zip): {member: pyc}
    pyscript_bytecode: dict[str, bytes] = field(default_factory=dict)
    # Bundle members the snapshot holds imported (its manifest's `held`): {member: sha}
    held: dict[str, str] = field(default_factory=dict)

    def add(self, logical: str, hashed: str, asset: Asset, size: int) -> None:
        self.assets[hashed] = (asset, True)
        self.assets[logical] = (asset, False)
        self.sizes[logical] = size
        self.raw_bytes += size

    def rewrite(self, text: str) -> str:
        """Replace every logical runtime URL in a page file by its hashed URL."""
        if not self.prefixes:
            return text
        names = sorted(self.prefixes, key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(n) + r"(?=[/\"'])" for n in names))
        return pattern.sub(lambda m: self.prefixes[m.group(0)], text)


def load_vendor(vendor: Path, runtime: Runtime | None = None) -> Runtime:
    """Read vendor/files.json and check every served file has its compressed copies."""
    runtime = runtime or Runtime()
    hint = "rebuild it: node web/build.mjs (or ./dev setup)"
    table_path = vendor / "files.json"
    if not table_path.is_file():
        raise RuntimeNotCompressed(f"{table_path} is missing; {hint}")
    table = json.loads(table_path.read_text())
    encodings: dict[str, str] = table["encodings"]
    files: dict[str, dict] = table["files"]
    for name in unlisted_files(vendor, table):
        raise RuntimeNotCompressed(f"vendor/{name} has no compressed copy; {hint}")
    groups: dict[str, list[str]] = {}
    if not (vendor / BENCH_GROUP).is_dir():  # an installed wheel: the bench files stay out
        files = {name: e for name, e in files.items() if group_of(name) != BENCH_GROUP}
    for name, entry in files.items():
        groups.setdefault(group_of(name), []).append(f"{name} {entry['sha256']}")
        for encoding, suffix in encodings.items():
            copy = vendor / (name + suffix)
            if not copy.is_file() or copy.stat().st_size != entry[encoding]:
                raise RuntimeNotCompressed(
                    f"vendor/{name}{suffix} is missing or not the one files.json names; {hint}"
                )
    hashes = {
        group: hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()[:12]
        for group, lines in groups.items()
    }
    for group, digest in hashes.items():
        runtime.prefixes[f"/vendor/{group}"] = f"/vendor/{digest}/{group}"
    for name, entry in files.items():
        bodies: dict[str | None, Path | bytes] = {None: vendor / name}
        bodies |= {encoding: vendor / (name + suffix) for encoding, suffix in encodings.items()}
        asset = Asset(_media_type(name), entry["sha256"], bodies)
        later = group_of(name) == BENCH_GROUP or name in ON_DEMAND | SIGNED_IN
        size = 0 if later else entry["bytes"]
        runtime.add(f"/vendor/{name}", f"/vendor/{hashes[group_of(name)]}/{name}", asset, size)
        if name in SIGNED_IN:
            runtime.signed_in_bytes += entry["bytes"]
    runtime.bytecode = read_bytecode(vendor)
    runtime.pyscript_bytecode = read_members(vendor / PYSCRIPT_BYTECODE_ZIP)
    runtime.held = read_held(vendor)
    return runtime


def unlisted_files(vendor: Path, table: dict) -> list[str]:
    """Files under vendor/ that would be served but have no entry (so no compressed copy)."""
    suffixes = tuple(table["encodings"].values())
    return sorted(
        name
        for path in vendor.rglob("*")
        if path.is_file()
        for name in [path.relative_to(vendor).as_posix()]
        if name not in table["files"]
        and name not in table["not_served"]
        and not name.endswith(suffixes)
    )


def add_bundle(
    runtime: Runtime, logical: str, data: bytes, media_type: str, *, first_visit: bool = True
) -> None:
    """Serve bytes made at start compressed, under a hashed URL too (`first_visit`: counted in
    what a first visit downloads, the boot screen's total; else in a signed-in window's)."""
    digest = hashlib.sha256(data).hexdigest()
    folder, _, name = logical.rpartition("/")
    hashed = f"{folder}/{digest[:12]}/{name}"
    runtime.prefixes[logical] = hashed
    asset = Asset(media_type, digest, compressed_bodies(data))
    runtime.add(logical, hashed, asset, len(data) if first_visit else 0)
    if not first_visit:
        runtime.signed_in_bytes += len(data)


def add_python_bundles(runtime: Runtime, data: bytes) -> None:
    """Serve the page's Python (runtime.python_bundle) as two zips: `START_BUNDLE`, which every
    window fetches before it starts, and `WORKSPACE_BUNDLE`, the workspace's modules, which a
    sign-in page fetches only once the person starts signing in (runtime.split_bundle).

    The bundle leaves out the sources the snapshot holds imported (runtime.without_held) and
    carries the build's bytecode in place of every source it was compiled from
    (runtime.with_bytecode): the page imports those without compiling them. So does PyScript's
    own package, whose sources PyScript writes beside them (runtime.with_members).
    """
    data = without_held(data, runtime.held)
    if runtime.bytecode is not None:
        data = with_bytecode(data, runtime.bytecode[1])
    start, workspace = split_bundle(data)
    start = with_members(start, runtime.pyscript_bytecode)
    add_bundle(runtime, START_BUNDLE, start, ZIP)
    add_bundle(runtime, WORKSPACE_BUNDLE, workspace, ZIP, first_visit=False)
