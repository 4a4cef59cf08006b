"""The FastAPI backend: `backend.app.create_app(settings)` builds everything."""

from importlib.metadata import version

# Spelled once, in pyproject.toml: the API, the MCP server and the package report this.
VERSION = version("ambient-note-awareness")
