"""Real servers for tests: a free loopback port; `serve.py` started, waited for (until
/api/health answers) and stopped, its log printed when it does not start; and an app on a real
uvicorn server in a thread of the test process (lifespan on, so streams are real streams)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port free on loopback right now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class InThreadServer:
    """`app` served by uvicorn on a free loopback port in a daemon thread; `url` once started."""

    def __init__(self, app) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_config=None, log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def clean_env(**settings: str) -> dict[str, str]:
    """This process's environment without any ANA_* setting, plus `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANA_")}
    env.update(settings)
    return env


class ServeProcess:
    """`python serve.py <args> --port <free port>` from the checkout, its output in `log_path`."""

    def __init__(
        self,
        *args: str,
        log_path: Path,
        env: dict[str, str] | None = None,
        port: int | None = None,
        start_seconds: float = 60,
    ) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "serve.py", *args, "--port", str(self.port)],
                cwd=REPO,
                env=clean_env() if env is None else env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._wait(start_seconds)

    def _wait(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"serve.py exited with {self.process.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        pytest.fail(f"serve.py did not answer /api/health within {seconds:.0f} s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def client(self, **kwargs) -> httpx.Client:
        kwargs.setdefault("timeout", 30)
        return httpx.Client(base_url=self.url, **kwargs)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
