"""Export and import (SPEC §18, issue 32): their cost against the plain tools, and the
server's memory while a large workspace streams out.

- Import: `POST /api/workspaces/{ws}/import` of a generated vault (300 notes in nested
  folders, Japanese names, CRLF and front matter, and 20 pictures of 20 KB) into a new,
  empty workspace, against `unzip` of the same file into a temporary folder, interleaved.
  Goal ≤ 5×.
- Export: `GET /api/workspaces/{ws}/export` of that workspace, read to the end, against `zip
  -r` of the unzipped tree, interleaved. Goal ≤ 3×.
- Memory: the server process's resident memory, polled while a large workspace (200 MB in
  the full run) is exported, against the same process idle just before (a restarted server,
  so the import that filled the workspace leaves nothing behind). Goal ≤ 1.2×.

Both timed requests go over HTTP to a real demo server on SQLite; `zip` and `unzip` are the
system's (Info-ZIP). When they are missing, Python's zipfile stands in and the note says so.
"""

from __future__ import annotations

import io
import os
import random
import shutil
import subprocess
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import httpx

from bench.plan import Plan
from bench.servers import USER, rss_kib
from bench.stats import figure
from support.servers import Server

VAULT_NOTES = 300
VAULT_IMAGES = 20
BIG_EXPORT_MB = {"full": 200, "quick": 40, "smoke": 8}
NOTE_BYTES = 1_000_000  # each note of the large workspace (under the 1 MiB limit)
POLL_SECONDS = 0.01


def _log(msg: str) -> None:
    print(f"  {msg}", flush=True)


def vault(n_notes: int = VAULT_NOTES, seed: int = 7) -> dict[str, bytes]:
    """A generated vault: nested folders, Japanese names, CRLF, front matter (as the tests')."""
    rng = random.Random(seed)
    folders = ["", "projects", "projects/2026", "日記", "日記/十二月", "a/b/c/d"]
    out: dict[str, bytes] = {}
    for n in range(n_notes):
        folder = rng.choice(folders)
        name = rng.choice(["note", "メモ", "ideas", "会議"]) + f" {n}.md"
        path = f"{folder}/{name}" if folder else name
        newline = rng.choice(["\n", "\r\n"])
        body = "本文 " * rng.randint(0, 300)
        lines = [f"# {name}", "", f"Link to [[note {max(0, n - 1)}]].", body]
        if n % 3 == 0:
            lines = ["---", f"title: {name}", "tags: [a, b]", "---", *lines]
        out[path] = newline.join(lines).encode() + newline.encode()
    for k in range(VAULT_IMAGES):  # pictures: PNG-like bytes that do not compress
        out[f"attachments/写真 {k}.png"] = b"\x89PNG\r\n\x1a\n" + rng.randbytes(20_000)
    return out


def zip_bytes(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


class _Alice:
    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=httpx.Timeout(600))
        r = self.http.post("/api/session", json={"username": USER[0], "password": USER[1]})
        r.raise_for_status()

    def new_workspace(self, name: str) -> str:
        r = self.http.post("/api/workspaces", json={"name": name})
        r.raise_for_status()
        return r.json()["id"]

    def import_zip(self, ws: str, data: bytes) -> dict:
        r = self.http.post(
            f"/api/workspaces/{ws}/import", files={"file": ("vault.zip", data, "application/zip")}
        )
        r.raise_for_status()
        return r.json()

    def export(self, ws: str) -> int:
        size = 0
        with self.http.stream("GET", f"/api/workspaces/{ws}/export") as r:
            r.raise_for_status()
            for chunk in r.iter_raw():
                size += len(chunk)
        return size


def _unzip(archive: Path, into: Path, system: bool) -> None:
    if system:
        subprocess.run(["unzip", "-q", "-o", str(archive), "-d", str(into)], check=True)
    else:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(into)  # a trusted, generated file: the baseline only


def _zip_tree(tree: Path, out: Path, system: bool) -> None:
    out.unlink(missing_ok=True)
    if system:
        subprocess.run(["zip", "-q", "-r", str(out), "."], cwd=tree, check=True)
    else:
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(tree.rglob("*")):
                if path.is_file():
                    zf.write(path, path.relative_to(tree).as_posix())


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def _speed_figures(plan: Plan, server: Server, work: Path) -> tuple[list[dict], dict]:
    system = bool(shutil.which("zip") and shutil.which("unzip"))
    entries = vault()
    data = zip_bytes(entries)
    archive = work / "vault.zip"
    archive.write_bytes(data)
    alice = _Alice(server.url)
    imports, unzips, exports, zips = [], [], [], []
    workspaces: list[str] = []
    for rep in range(plan.reps):
        tree = work / f"tree-{rep}"
        ws = alice.new_workspace(f"Bench import {rep}")
        workspaces.append(ws)
        sides = ("server", "tool") if rep % 2 == 0 else ("tool", "server")
        for side in sides:
            if side == "server":
                imports.append(_timed(lambda ws=ws: alice.import_zip(ws, data)))
            else:
                unzips.append(_timed(lambda tree=tree: _unzip(archive, tree, system)))
        for side in sides:
            if side == "server":
                exports.append(_timed(lambda ws=ws: alice.export(ws)))
            else:
                zips.append(_timed(lambda tree=tree: _zip_tree(tree, work / "tree.zip", system)))
    alice.http.close()
    tool = "Info-ZIP zip/unzip" if system else "Python zipfile (zip/unzip not installed)"
    total = sum(map(len, entries.values())) / 1e6
    size = (
        f"{VAULT_NOTES} notes and {VAULT_IMAGES} pictures, {total:.1f} MB, "
        f"zip {len(data) / 1e6:.2f} MB"
    )
    return [
        figure(
            "Import a vault (POST …/import / unzip into a folder)",
            imports,
            unzips,
            unit="ms/vault",
            goal="≤ 5×",
            limit=5.0,
            note=f"{size}; into a new workspace, one transaction, over HTTP on SQLite; "
            f"baseline {tool}",
        ),
        figure(
            "Export a workspace (GET …/export / zip -r of the tree)",
            exports,
            zips,
            unit="ms/workspace",
            goal="≤ 3×",
            limit=3.0,
            note=f"{size}; streamed and read to the end over HTTP; baseline {tool}",
        ),
    ], {"workspaces": workspaces, "system_zip": system}


def _big_zip(megabytes: int) -> bytes:
    """`megabytes` notes of NOTE_BYTES text each (hex: deflates about 2 to 1)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for n in range(megabytes):
            zf.writestr(f"big/{n // 50}/n{n}.md", os.urandom(NOTE_BYTES // 2).hex().encode())
    return buf.getvalue()


def _peak_while(pid: int, fn) -> tuple[int, object]:
    """The highest RSS (KiB) seen while `fn()` runs, and its result."""
    peak = rss_kib(pid)
    done = threading.Event()

    def poll() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_kib(pid))
            time.sleep(POLL_SECONDS)

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        result = fn()
    finally:
        done.set()
        thread.join()
    return max(peak, rss_kib(pid)), result


def _memory_figure(plan: Plan, data_dir: Path) -> tuple[dict, dict]:
    megabytes = BIG_EXPORT_MB[plan.mode]
    server = Server(data_dir).start()
    try:
        alice = _Alice(server.url)
        ws = alice.new_workspace("Bench big export")
        alice.import_zip(ws, _big_zip(megabytes))
        alice.http.close()
    finally:
        server.stop()
    _log(f"{megabytes} MB workspace imported; restarting the server")
    server = Server(data_dir).start()  # the same database, a process that never imported
    try:
        pid = server.process.pid
        alice = _Alice(server.url)
        alice.export("personal")  # warm: the export's code is loaded before the idle figure
        time.sleep(0.5)
        # Idle is read once, before the first large export: a later reading would include
        # whatever that export left allocated, and flatter the ratio.
        idle = [float(rss_kib(pid))] * plan.reps
        during, sizes = [], []
        for _ in range(plan.reps):
            peak, size = _peak_while(pid, lambda: alice.export(ws))
            during.append(float(peak))
            sizes.append(size)
        alice.http.close()
    finally:
        server.stop()
    return figure(
        f"Server memory during a {megabytes} MB export (peak RSS / idle RSS)",
        during,
        idle,
        unit="KiB",
        goal="≤ 1.2×",
        limit=1.2,
        note=f"{megabytes} notes of 1 MB; zip {sizes[0] / 1e6:.0f} MB read to the end as fast "
        f"as it comes; RSS polled every {POLL_SECONDS * 1000:.0f} ms; idle read once, before "
        "the first large export",
    ), {"export_bytes": sizes}


def transfer(plan: Plan) -> tuple[list[dict], dict]:
    work = Path(tempfile.mkdtemp(prefix="ana-bench-transfer-"))
    previous = os.environ.get("ANA_LOG_LEVEL")
    os.environ.setdefault("ANA_LOG_LEVEL", "WARNING")
    try:
        server = Server(work / "data").start()
        try:
            figures, details = _speed_figures(plan, server, work)
        finally:
            server.stop()
        _log("import and export done")
        memory, more = _memory_figure(plan, work / "memory-data")
        _log("export memory done")
        return [*figures, memory], details | more
    finally:
        if previous is None:
            os.environ.pop("ANA_LOG_LEVEL", None)
        shutil.rmtree(work, ignore_errors=True)
