# Entry point PyScript runs in every window; the app itself lives in the bundled `app` package.
from app import boot

await boot.main()  # noqa: F704 - PyScript runs this module with top-level await
