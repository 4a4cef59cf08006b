"""Inside Pyodide (see run.mjs): pytest over every unit test that needs only the pure core."""

import ast
import os
import sys
from pathlib import Path

REPO = Path("/repo")
# What a pure-core test may import: the standard library, the core itself, the page's pure
# models, the tests' own fakes and pure-Python test, parsing and merging libraries.
ALLOWED_ROOTS = {
    "ambient",
    "app",
    "tests",
    "pytest",
    "hypothesis",
    "markdown_it",
    "mdurl",
    "merge3",
}


def _imported(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def _pure(name: str) -> bool:
    top = name.split(".")[0]
    if top == "app":  # the page's browser layer needs js/pyodide; only *_model is pure
        return name.removeprefix("app.").endswith("_model")
    if top == "tests":
        return name == "tests.unit.fakes"
    return top in ALLOWED_ROOTS or top in sys.stdlib_module_names or top == "__future__"


def pure_core_tests() -> list[str]:
    """Test modules that exercise ambient/ or web/app/*_model.py and import nothing else."""
    chosen = []
    for folder in ("tests/unit", "tests/property"):
        for path in sorted((REPO / folder).glob("test_*.py")):
            names = _imported(ast.parse(path.read_text(encoding="utf-8")))
            core = any(n.split(".")[0] in ("ambient", "app") for n in names)
            if core and all(_pure(n) for n in names):
                chosen.append(f"{folder}/{path.name}")
    return chosen


class Tally:
    """Counts outcomes, for the closing `N passed, N failed` line."""

    def __init__(self) -> None:
        self.passed = self.failed = 0

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self.failed += 1
        elif report.passed and report.when == "call":
            self.passed += 1


def main(args) -> int:
    sys.dont_write_bytecode = True  # the repository is mounted from the host: write nothing
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the venv's other plugins are CPython's
    os.chdir(REPO)
    sys.path.append("/venv-site")
    import pytest

    files = pure_core_tests()
    if not files:
        print("tests/pyodide: no pure-core test modules found")
        return 1
    print(f"Pyodide {sys.version.split()[0]} on {sys.platform}: {len(files)} test modules")
    tally = Tally()
    status = pytest.main(
        [
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "hypothesis.extra.pytestplugin",
            "--noconftest",
            *files,
            *list(args),
        ],
        plugins=[tally],
    )
    print(f"{tally.passed} passed, {tally.failed} failed")
    return int(status) if tally.passed else 1
