"""Settings: one pydantic-settings class, read from ANA_* environment variables and the CLI."""

from __future__ import annotations

import ipaddress
from pathlib import Path

from limits import parse as parse_rate_limit
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ambient.contract import MAX_NOTE_BYTES

ENV_PREFIX = "ANA_"
DEFAULT_SECRET_KEY = "dev-insecure-secret-change-me"
REPO_ROOT = Path(__file__).resolve().parent.parent
# Always allowed in the Host header (SPEC §12); the configured host and ANA_ALLOWED_HOSTS add to it.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
_WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")


class InsecureSettingsError(RuntimeError):
    """Raised when the server would start outside demo mode with a development default."""


class Settings(BaseSettings):
    """Everything the server can be configured with; every field has help text (serve.py --help)."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    host: str = Field("127.0.0.1", description="Interface the HTTP server listens on.")
    port: int = Field(8000, ge=0, le=65535, description="TCP port the HTTP server listens on.")
    data_dir: Path = Field(
        Path("data"), description="Folder for the SQLite database and other local data."
    )
    database_url: str | None = Field(
        None,
        description=(
            "SQLAlchemy database URL. Empty means the SQLite file <data_dir>/ambient.db; "
            "use postgresql+psycopg://user:password@host/dbname for PostgreSQL."
        ),
    )
    demo: bool = Field(
        False,
        description="Demo mode: seed users alice/alice and bob/bob with sample notes on a fresh "
        "database, and allow the development secret key.",
    )
    secret_key: str = Field(
        DEFAULT_SECRET_KEY,
        repr=False,
        description="Server secret: sign-in ids are keyed with it (HMAC), so changing it signs "
        "everyone out. Must be changed from the default outside demo mode.",
    )
    allowed_hosts: str = Field(
        "",
        description="More host names the Host header may name, comma-separated (e.g. "
        "notes.example.com,*.example.org). localhost, 127.0.0.1, [::1] and --host are always "
        "allowed; other hosts get 400.",
    )
    route_rate_limit: str = Field(
        "300/minute",
        description="Per-user limit on each expensive route (assistant turns, tool calls, "
        "inline commands, MCP), in the `limits` notation; more gets 429 with Retry-After.",
    )
    trusted_proxies: str = Field(
        "",
        description="Addresses (or networks) of the reverse proxies whose X-Forwarded-For and "
        "X-Forwarded-Proto headers are believed, comma-separated (e.g. 127.0.0.1 or "
        "10.0.0.0/8). Empty means none: the client address is the peer's own, so a client "
        "cannot pick the address the sign-in throttle counts.",
    )
    rate_limit_storage: str = Field(
        "memory://",
        description="Where the sign-in, per-user and MCP limits count: memory:// (each "
        "process on its own) or a Redis URL such as redis://127.0.0.1:6379/0 shared by every "
        "process, so N processes allow the documented numbers, not N times them.",
    )
    header_timeout_seconds: float = Field(
        10,
        gt=0,
        description="A request's header section must arrive within this many "
        "seconds of its first byte (or of the connection opening), else the connection closes.",
    )
    body_timeout_seconds: float = Field(
        30,
        gt=0,
        description="A request body must keep arriving: after this many seconds "
        "without a byte of it, the connection closes.",
    )
    session_ttl_hours: float = Field(
        24 * 14, gt=0, description="How long a sign-in lasts, in hours."
    )
    key_session_ttl_minutes: float = Field(
        60, gt=0, description="How long a workspace key session lasts, in minutes."
    )
    max_note_bytes: int = Field(
        MAX_NOTE_BYTES, gt=0, description="Largest note accepted, in UTF-8 bytes (larger gets 413)."
    )
    log_level: str = Field("INFO", description="Log level: DEBUG, INFO, WARNING or ERROR.")
    cookie_secure: bool | None = Field(
        None,
        description="Mark the session cookie Secure. Empty means automatic: Secure when the "
        "request arrived over HTTPS (directly or per a trusted proxy's X-Forwarded-Proto).",
    )
    web_dir: Path | None = Field(
        None,
        description="Folder holding the page (index.html, static/, vendor/, app/). Empty means "
        "the page shipped with the app: web/ in a checkout, the installed package's copy else.",
    )
    llm_base_url: str | None = Field(
        None,
        description="Base URL of an OpenAI-compatible chat API (Ollama: "
        "http://127.0.0.1:11434/v1, llama.cpp: http://127.0.0.1:8080/v1). Empty means the "
        "built-in offline agent, unless an API key alone selects OpenAI.",
    )
    llm_model: str | None = Field(
        None,
        description="Model name for the OpenAI-compatible API. Empty means the first model "
        "the server lists (gpt-4o-mini for OpenAI).",
    )
    llm_api_key: str | None = Field(
        None,
        repr=False,
        description="API key for the OpenAI-compatible API; alone (no base URL) it selects "
        "OpenAI itself.",
    )
    events_keepalive_seconds: float = Field(
        15,
        gt=0,
        le=15,
        description="The event stream sends a keep-alive comment at least this often, in seconds.",
    )
    events_streams_per_user: int = Field(
        8,
        ge=1,
        description="Open event streams one user may hold in one server process; one "
        "more gets 429.",
    )
    events_queue_size: int = Field(
        256,
        ge=1,
        description="Events waiting for one stream's client; a client that falls "
        "this far behind is dropped (it resumes with Last-Event-ID).",
    )
    events_max_stream_seconds: float = Field(
        300,
        gt=0,
        description="An event stream ends after this many seconds and the client "
        "reconnects with Last-Event-ID (which checks the sign-in and membership again).",
    )
    events_send_timeout_seconds: float = Field(
        30,
        gt=0,
        description="A stream whose client accepts nothing for this many seconds is closed.",
    )
    llm_timeout_seconds: float = Field(
        30, gt=0, description="Timeout for one call to the chat API, in seconds."
    )
    oidc_issuer: str | None = Field(
        None,
        description="OpenID Connect: the identity provider's issuer URL (its "
        "/.well-known/openid-configuration is read from there). Sign-in with the provider is "
        "offered only when this and the client id are set (docs/oidc.md).",
    )
    oidc_client_id: str | None = Field(
        None, description="OpenID Connect: this server's client id at the identity provider."
    )
    oidc_client_secret: str | None = Field(
        None,
        repr=False,
        description="OpenID Connect: this server's client secret at the identity provider.",
    )
    oidc_allowed_domains: str = Field(
        "",
        description="OpenID Connect: email domains allowed to sign in, comma-separated (e.g. "
        "example.com,example.org); when set, the provider must also say the email is "
        "verified. Empty means any account the provider signs in.",
    )
    oidc_name: str = Field(
        "single sign-on",
        description="OpenID Connect: the name the sign-in button shows for the provider.",
    )

    @field_validator("route_rate_limit")
    @classmethod
    def _known_rate(cls, value: str) -> str:
        try:
            parse_rate_limit(value)
        except ValueError:
            raise ValueError("route_rate_limit must look like 300/minute") from None
        return value

    @field_validator("rate_limit_storage")
    @classmethod
    def _known_storage(cls, value: str) -> str:
        scheme = value.split("://", 1)[0].lower() if "://" in value else ""
        if scheme not in ("memory", "redis", "rediss", "redis+unix"):
            raise ValueError(
                "rate_limit_storage must be memory:// or a redis://, rediss:// or redis+unix:// URL"
            )
        return value

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ValueError("log_level must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return level

    def oidc_enabled(self) -> bool:
        """Whether sign-in with OpenID Connect is offered: issuer and client id are set."""
        return bool((self.oidc_issuer or "").strip() and (self.oidc_client_id or "").strip())

    def oidc_domain_list(self) -> list[str]:
        """The email domains oidc_allowed_domains names, lower case (empty: any)."""
        return [
            d.strip().lower().lstrip("@") for d in self.oidc_allowed_domains.split(",") if d.strip()
        ]

    def resolved_database_url(self) -> str:
        """The database URL to use: the configured one, or the SQLite file in data_dir."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'ambient.db').as_posix()}"

    def allowed_host_list(self) -> list[str]:
        """Host header values accepted: loopback names, the configured host, the extra ones."""
        hosts = list(LOOPBACK_HOSTS)
        configured = self.host.strip().lower()
        if configured not in _WILDCARD_ADDRESSES:
            hosts.append(f"[{configured}]" if ":" in configured else configured)
        hosts += [h.strip().lower() for h in self.allowed_hosts.split(",") if h.strip()]
        return list(dict.fromkeys(hosts))

    def trusted_proxy_list(self) -> list[str]:
        """The proxies named in trusted_proxies (empty: forwarded headers are not believed)."""
        return [p.strip() for p in self.trusted_proxies.split(",") if p.strip()]

    def trusts_proxy(self, peer: str | None) -> bool:
        """Whether the direct peer `peer` is one of trusted_proxies (an address or a network;
        `*` as uvicorn reads it: everyone). A peer that is no IP address is never trusted."""
        proxies = self.trusted_proxy_list()
        if "*" in proxies:
            return True
        try:
            address = ipaddress.ip_address(peer or "")
        except ValueError:
            return False
        for proxy in proxies:
            try:
                if address in ipaddress.ip_network(proxy, strict=False):
                    return True
            except ValueError:  # not an address: uvicorn may take it (a socket path), we don't
                continue
        return False

    def check_secure(self) -> None:
        """Refuse the development secret outside demo mode, and demo mode off loopback."""
        if self.demo and not is_loopback(self.host):
            raise InsecureSettingsError(
                f"Refusing to start: demo mode has public passwords, so it only listens on "
                f"loopback (127.0.0.1, ::1 or localhost), not on {self.host!r}."
            )
        if not self.demo and self.secret_key == DEFAULT_SECRET_KEY:
            raise InsecureSettingsError(
                f"Refusing to start: the secret key is the development default. Set "
                f"{ENV_PREFIX}SECRET_KEY to a long random value (for example the output of "
                f"`python -c 'import secrets; print(secrets.token_urlsafe(32))'`), "
                f"or run with --demo for a local demo."
            )


def env_var_name(field_name: str) -> str:
    """The environment variable that sets `field_name`."""
    return f"{ENV_PREFIX}{field_name.upper()}"


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or name to listen on) is this machine only."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False
