"""Drives mcp_ts_oauth.mjs (the TypeScript SDK's OAuth client, run by Node) step by step over
JSON lines, for tests/integration/test_oauth_sdk.py and e2e/test_oauth_sdk.py."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("mcp_ts_oauth.mjs")
TS_REDIRECT = "http://127.0.0.1:33421/callback"


def calls(seen: list[list[Any]]) -> list[list[Any]]:
    """The client's answers from /mcp and the token endpoint (discovery left out)."""
    return [s for s in seen if not s[0].startswith("/.well-known/")]


class TsOAuthClient:
    """`node mcp_ts_oauth.mjs`; `consent(url) -> the URL the browser was sent back to` is
    called when the client asks for authorization (unless `cookie` lets it post the consent
    itself)."""

    def __init__(
        self,
        base: str,
        scope: str,
        workspace: str,
        consent: Callable[[str], str] | None = None,
        cookie: str | None = None,
    ) -> None:
        node = shutil.which("node")
        assert node, "Node.js is needed for the TypeScript SDK interoperability test"
        sdk = ROOT / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
        assert sdk.exists(), "run `npm ci` first: @modelcontextprotocol/sdk is a devDependency"
        env = {k: v for k, v in os.environ.items() if k != "ANA_COOKIE"}
        if cookie is not None:
            env["ANA_COOKIE"] = cookie
        self.consent = consent
        self.process = subprocess.Popen(
            [node, str(SCRIPT), base, scope, workspace],
            env=env,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def next(self, step: str, timeout: float = 90) -> Any:
        """Wait for the client's report of `step`, doing any consent it asks for meanwhile."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"the TypeScript client said nothing for {timeout} s")
            if not line:
                self.process.wait(10)
                assert self.process.stderr is not None
                raise AssertionError(f"the TypeScript client ended: {self.process.stderr.read()}")
            said = json.loads(line)
            if "authorize" in said:
                back = self.consent(said["authorize"]) if self.consent else "refused"
                self.send(back)
                continue
            assert step in said, said
            return said[step]

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
