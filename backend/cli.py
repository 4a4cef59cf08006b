"""Command-line entry point: `ambient-notes` or `python serve.py [--demo] [--data-dir DIR] ...`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import ValidationError

from backend.config import InsecureSettingsError, Settings, env_var_name

CLI_FIELDS = ("host", "port", "data_dir", "database_url", "demo", "log_level")
KEEP_ALIVE_SECONDS = 5  # an idle keep-alive connection is closed after this (uvicorn's own)


def settings_help() -> str:
    """Every setting with its environment variable, default and help text."""
    lines = ["settings (environment variables; command-line options override them):"]
    for name, field in Settings.model_fields.items():
        default = "(empty)" if field.default is None else field.default
        if name in ("secret_key", "web_dir"):
            default = "(built in)"
        lines.append(f"  {env_var_name(name):28} {field.description} Default: {default}.")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ambient-notes [serve]",
        description="Run the Ambient Note Awareness server (from a checkout: python serve.py).",
        epilog=settings_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fields = Settings.model_fields
    parser.add_argument("--host", help=fields["host"].description)
    parser.add_argument("--port", type=int, help=fields["port"].description)
    parser.add_argument("--data-dir", type=Path, help=fields["data_dir"].description)
    parser.add_argument("--database-url", help=fields["database_url"].description)
    parser.add_argument("--log-level", help=fields["log_level"].description)
    parser.add_argument(
        "--demo", action="store_true", default=None, help=fields["demo"].description
    )
    return parser


def settings_from_args(argv: list[str] | None = None) -> Settings:
    """Settings from the environment, with the given command-line options on top."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:  # `ambient-notes serve --demo` reads like the other forms
        argv = argv[1:]
    args = build_parser().parse_args(argv)
    overrides = {
        name: getattr(args, name) for name in CLI_FIELDS if getattr(args, name) is not None
    }
    return Settings(**overrides)


def main(argv: list[str] | None = None) -> int:
    try:
        settings = settings_from_args(argv)
        settings.check_secure()
    except InsecureSettingsError as exc:
        print(exc, file=sys.stderr)
        return 2
    except ValidationError as exc:
        print(f"Invalid settings:\n{exc}", file=sys.stderr)
        return 2

    import uvicorn

    from backend.app import create_app
    from backend.limits.bounded_h11 import MAX_HEADER_BYTES, bounded_h11
    from backend.logging import uvicorn_log_config

    app = create_app(settings)
    if settings.demo:
        host = "localhost" if settings.host in ("127.0.0.1", "0.0.0.0", "::") else settings.host
        print(
            f"Demo mode: open http://{host}:{settings.port}/ and sign in as alice / alice "
            f"(or bob / bob). Data: {settings.data_dir}",
            flush=True,
        )
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_config=uvicorn_log_config(settings.log_level),
        access_log=False,  # the app writes its own JSON request log without URLs
        # h11 rather than httptools: h11 refuses a header section over 16 KiB as it arrives
        # (httptools has no limit), and our subclass closes half-sent requests.
        http=bounded_h11(settings.header_timeout_seconds, settings.body_timeout_seconds),
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        # Forwarded headers rewrite the client address only from proxies the operator named;
        # uvicorn's own default would trust any local process.
        proxy_headers=bool(settings.trusted_proxy_list()),
        forwarded_allow_ips=settings.trusted_proxy_list() or None,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
