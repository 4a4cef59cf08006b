"""Packaging hook: the wheel carries the page (built web/vendor included) as backend/webroot."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# What the server serves from the page's folder; web/app is the page's own Python (zipped for
# the browser, never imported by the server). Keep in step with backend/delivery/web.py.
WEB_FILES = ["index.html", "favicon.svg"]
WEB_TREES = ["static", "vendor", "app"]


class BuildWithPage(build_py):
    """The normal build, then the page's files copied next to the backend package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install serves web/ from the checkout itself
        web = ROOT / "web"
        if not (web / "vendor" / "pyodide" / "pyodide.mjs").is_file():
            raise SystemExit("web/vendor is not built: run `node web/build.mjs` first")
        target = Path(self.build_lib) / "backend" / "webroot"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for name in WEB_FILES:
            shutil.copy2(web / name, target / name)
        # "bench": the benchmarks' own pages (static/bench) and files (vendor/bench, the full
        # standard library of the bare Pyodide baseline); the server does without them.
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".stamp", "bench")
        for name in WEB_TREES:
            shutil.copytree(web / name, target / name, ignore=ignore)


setup(cmdclass={"build_py": BuildWithPage})
