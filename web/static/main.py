# Entry point PyScript runs in every window; the app itself lives in the bundled `app` package,
# imported a module at a time with the browser's turn between (app/imports.py says why).
from app.startup import start

await start()  # noqa: F704, PLE1142 - PyScript runs this module with top-level await
