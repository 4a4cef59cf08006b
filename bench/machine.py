"""The machine a run happened on: CPU, cores, memory, OS and runtime versions."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"') + f" (kernel {platform.release()})"
    except OSError:
        pass
    return platform.platform()


def _npm_version(package: str) -> str:
    try:
        data = json.loads((ROOT / "node_modules" / package / "package.json").read_text())
        return str(data.get("version"))
    except (OSError, ValueError):
        return "unknown"


def _chromium_version(path: str) -> str:
    try:
        out = subprocess.run(
            [path, "--version"], check=False, capture_output=True, text=True, timeout=20
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def describe(chromium: str | None) -> dict:
    """A dict for the JSON file and the Markdown header."""
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "os": _os_name(),
        "python": sys.version.split()[0],
        "chromium": _chromium_version(chromium) if chromium else "not used",
        "pyodide": _npm_version("pyodide"),
        "pyscript": _npm_version("@pyscript/core"),
    }
