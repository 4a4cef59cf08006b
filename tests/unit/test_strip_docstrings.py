"""The snapshot's interpreter drops its docstrings (web/strip_docstrings.py), and nothing else.

Run in a fresh CPython, since it strips every docstring of the process it runs in; the page's
own interpreter is checked on the built snapshot (tests/integration/test_snapshot.py).
"""

import json
import subprocess
import sys
import textwrap

from backend.delivery.runtime import CHECKOUT_WEB

SAMPLE = '''
"""The module's docstring."""

def plain():
    """A function's docstring."""
    return 1 + 1

def outer():
    def inner():
        """A nested function's docstring."""
        return "inner"
    return inner

def same():
    "shared"
    return "shared"

class Thing:
    """A class's docstring."""

    def method(self):
        """A method's docstring."""
        return "method"

    @property
    def size(self):
        """A property's docstring."""
        return 3

square = lambda x: x * x
'''

CHECK = """
import importlib.util, json, sys
sys.path.insert(0, {folder!r})
import sample
spec = importlib.util.spec_from_file_location("strip_docstrings", {strip!r})
strip = importlib.util.module_from_spec(spec)
spec.loader.exec_module(strip)
dropped = strip.strip_docstrings()
inner = sample.outer()  # made after the strip, from its outer function's constants
print(json.dumps({{
    "dropped": dropped,
    "docs": [sample.__doc__, sample.plain.__doc__, inner.__doc__, sample.Thing.__doc__,
             sample.Thing.method.__doc__, sample.Thing.__dict__["size"].__doc__,
             json.dumps.__doc__],
    "results": [sample.plain(), inner(), sample.Thing().method(), sample.Thing().size,
                sample.square(4), json.dumps([1])],
    "shared": [sample.same(), sample.same.__doc__],
}}))
"""


def test_every_docstring_goes_and_every_function_still_runs(tmp_path):
    (tmp_path / "sample.py").write_text(SAMPLE)
    script = CHECK.format(folder=str(tmp_path), strip=str(CHECKOUT_WEB / "strip_docstrings.py"))
    done = subprocess.run(
        [sys.executable, "-B", "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["docs"] == [None] * 7
    assert result["results"] == [2, "inner", "method", 3, 16, "[1]"]
    # Its docstring is also the constant it returns: the constant stays, its __doc__ goes.
    assert result["shared"] == ["shared", None]
    assert result["dropped"] > 10_000  # the standard library's too, not only the sample's
