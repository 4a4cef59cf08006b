"""One router per resource; `create_app` includes them and then mounts the page last."""
