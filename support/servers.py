"""Real servers for tests and benchmarks: a free loopback port; `serve.py` started, waited for
(until /api/health answers) and stopped, its log in the error when it does not start (`Server`:
the demo app so served); and an app on a real uvicorn server in a thread (lifespan on)."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
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
                raise RuntimeError(f"serve.py exited with {self.process.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(
            f"serve.py did not answer /api/health within {seconds:.0f} s:\n{self.log()}"
        )

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


@dataclass
class Server:
    """A serve.py process; `log()` is its output so far, printed when something fails."""

    data_dir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    env: dict = field(default_factory=dict)  # extra ANA_* settings, e.g. a fake model server
    _serving: ServeProcess | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.data_dir.parent / f"server-{self.port}.log"

    def start(self) -> Server:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._serving = ServeProcess(
            "--demo",
            "--data-dir",
            str(self.data_dir),
            port=self.port,
            log_path=self.log_path,
            env={**os.environ, **self.env},
            start_seconds=30,
        )
        self.process = self._serving.process
        return self

    def stop(self) -> None:
        if self._serving is not None:
            self._serving.stop()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def db(self) -> sqlite3.Connection:
        """A read connection to the server's real SQLite file, to observe what it stored."""
        connection = sqlite3.connect(self.data_dir / "ambient.db", timeout=5)
        connection.row_factory = sqlite3.Row
        return connection

    def delivery_row(self, conversation_id: str) -> sqlite3.Row | None:
        with self.db() as connection:
            return connection.execute(
                "SELECT * FROM agent_delivery_credentials WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
