"""The FastAPI backend: `backend.app.create_app(settings)` builds everything."""
