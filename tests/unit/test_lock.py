"""The hash-checked lock files hold exactly the versions pyproject.toml pins (`./dev lock`)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIX = "pyproject.toml and the lock disagree: run `./dev lock` and commit both lock files."


def _name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def _pins(requirements: list[str]) -> dict[str, str]:
    """name -> version for `name[extras]==version` lines; every dependency must be pinned."""
    pins = {}
    for line in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?==([^\s;]+)", line.strip())
        assert match, f"pyproject.toml: {line!r} is not pinned as name==version"
        pins[_name(match[1])] = match[3]
    return pins


def _locked(lock: str) -> dict[str, set[str]]:
    """name -> versions in a lock file (a name may appear once per environment marker)."""
    locked: dict[str, set[str]] = {}
    for line in (ROOT / lock).read_text().splitlines():
        match = re.match(r"([A-Za-z0-9_.-]+)==([^\s;\\]+)", line)
        if match:
            locked.setdefault(_name(match[1]), set()).add(match[2])
    return locked


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _check(pins: dict[str, str], lock: str) -> None:
    locked = _locked(lock)
    problems = [
        f"{name}=={version} (lock has {sorted(locked.get(name, [])) or 'nothing'})"
        for name, version in sorted(pins.items())
        if locked.get(name) != {version}
    ]
    assert not problems, f"{lock} is out of step with {', '.join(problems)}. {FIX}"


def test_runtime_lock_has_every_runtime_pin():
    _check(_pins(_project()["dependencies"]), "requirements.lock")


def test_dev_lock_has_every_runtime_and_dev_pin():
    project = _project()
    pins = _pins(project["dependencies"]) | _pins(project["optional-dependencies"]["dev"])
    _check(pins, "requirements-dev.lock")


def test_every_lock_entry_is_hash_checked():
    for lock in ("requirements.lock", "requirements-dev.lock"):
        entries = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / lock).read_text())
        bare = [e.split()[0] for e in entries if "==" in e.split("\n")[0] and "--hash=" not in e]
        assert not bare, f"{lock}: no hash for {bare}. {FIX}"


def test_runtime_lock_agrees_with_dev_lock():
    runtime, dev = _locked("requirements.lock"), _locked("requirements-dev.lock")
    differ = sorted(name for name, versions in runtime.items() if dev.get(name) != versions)
    assert not differ, f"requirements.lock and requirements-dev.lock differ on {differ}. {FIX}"
