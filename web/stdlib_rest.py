"""The standard library's rest, imported on demand: a finder the Pyodide snapshot holds.

The zip a window downloads beside the snapshot holds only what the page imports after the
snapshot is restored (web/runtime.json's `stdlib_after_snapshot`); every other module of the
standard library is in a second zip, python_stdlib_rest.zip, which a window fetches only when
one of them is imported (backend/delivery/runtime.split_zip makes both). This finder is last
on `sys.meta_path`: asked for a module only the rest holds, it has the zip fetched once,
written into the file system, and answers from it through `zipimport`, so an import works as
with the full standard library, only slower the first time.

web/snapshot.mjs runs this file inside the build's interpreter and installs `RestFinder`
with the page's fetch (`anaStdlibRest` in web/static/pyodide-snapshot.mjs); it imports no
browser module itself, so it is tested under CPython with a local fetch.
"""

from __future__ import annotations

import zipimport
from collections.abc import Callable, Iterable
from importlib.machinery import ModuleSpec


class RestFinder:
    """Finds the modules of `names` in the zip at `path`, fetched by `fetch` on first need.

    `fetch(name)` returns the zip's bytes; `name` is the module that needed it (the page
    reports it, since a module missing from the start zip is a slower first import).
    """

    def __init__(self, names: Iterable[str], path: str, fetch: Callable[[str], bytes]) -> None:
        self.names = frozenset(names)
        self.path = path
        self.fetch = fetch
        self.fetched = False
        self.served: list[str] = []  # the modules answered from the rest, in order

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> ModuleSpec | None:
        if fullname not in self.names:
            return None
        if not self.fetched:
            try:
                data = self.fetch(fullname)
            except Exception as error:  # the page's fetch failed: the import fails, clearly
                raise ImportError(
                    f"{fullname}: the rest of the standard library could not be fetched ({error})",
                    name=fullname,
                ) from error
            with open(self.path, "wb") as out:
                out.write(data)
            self.fetched = True
        # zipimport answers for one folder of the zip: the package the module is in.
        folder = "/".join([self.path, *fullname.split(".")[:-1]])
        spec = zipimport.zipimporter(folder).find_spec(fullname)
        if spec is not None:
            self.served.append(fullname)
        return spec

    def invalidate_caches(self) -> None:
        """Nothing to forget: the names are fixed by the build and the zip never changes."""
