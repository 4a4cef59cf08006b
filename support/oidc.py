"""A real OpenID Connect provider for tests and e2e: tests/integration/oidc_provider.mjs (the
`oidc-provider` npm package, installed by ./dev setup) on a free port, with one client whose
redirect URI names the port the app will listen on."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from support.servers import REPO, free_port

SCRIPT = REPO / "tests" / "integration" / "oidc_provider.mjs"
CLIENT_ID = "ambient-notes-test"


@dataclass
class OidcProvider:
    """The provider process; `issuer`, the client's id and secret, and the app port its one
    redirect URI names (start the app there: `AppServer`)."""

    process: subprocess.Popen[bytes]
    issuer: str
    client_secret: str
    app_port: int
    log_path: Path
    client_id: str = CLIENT_ID

    def settings(self, **more: Any) -> dict[str, Any]:
        """The app settings that point at this provider."""
        return {
            "oidc_issuer": self.issuer,
            "oidc_client_id": self.client_id,
            "oidc_client_secret": self.client_secret,
            **more,
        }

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_provider(
    accounts: dict[str, dict[str, Any]], *, log_dir: Path, seconds: float = 30
) -> OidcProvider:
    """Start oidc_provider.mjs on a free port, for an app that will listen on another free
    port; returns once its discovery document answers (or fails with its log)."""
    port, app_port = free_port(), free_port()
    secret = secrets.token_urlsafe(24)
    log_path = log_dir / f"oidc-provider-{port}.log"
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [
                "node",
                str(SCRIPT),
                str(port),
                CLIENT_ID,
                f"http://127.0.0.1:{app_port}/api/oidc/callback",
                json.dumps(accounts),
            ],
            cwd=REPO,
            env={
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "OIDC_TEST_CLIENT_SECRET": secret,
                "NODE_ENV": "test",
            },
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    provider = OidcProvider(process, f"http://localhost:{port}", secret, app_port, log_path)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the OpenID provider exited:\n{provider.log()}")
        try:
            url = f"{provider.issuer}/.well-known/openid-configuration"
            if httpx.get(url, timeout=2).status_code == 200:
                return provider
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    provider.stop()
    raise RuntimeError(f"the OpenID provider did not answer in {seconds:.0f} s:\n{provider.log()}")
