"""First run (SPEC §17): create the first administrator with the setup code from the log."""

from __future__ import annotations

from datetime import timedelta

import anyio.to_thread
from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from backend.api.deps import PasswordsDep, SessionDep, SettingsDep
from backend.api.routes.session import SessionOut, set_session_cookie
from backend.db import utcnow
from backend.errors import Forbidden, NotFound, error_responses
from backend.limits.throttle import Throttle, client_address
from backend.services import sessions as sessions_service
from backend.services import setup as setup_service

router = APIRouter(prefix="/api/setup", tags=["setup"])

WRONG_CODE = "The setup code is not correct. It is in the server's log."
# Failed codes count against the client address, and against this one name shared by every
# address (no username can hold a NUL): at most 5 wrong codes a minute in all.
SETUP_KEY = "\0setup"


class SetupNeeded(BaseModel):
    needed: bool = Field(description="True while no account exists: the page shows setup.")


class SetupIn(BaseModel):
    username: str = Field(max_length=1024)
    password: str = Field(max_length=1024)
    code: str = Field(max_length=64, description="The code in the server's start-up log.")


@router.get("", response_model=SetupNeeded, summary="Is first-run setup needed?")
def setup_needed(db: SessionDep) -> SetupNeeded:
    return SetupNeeded(needed=setup_service.is_needed(db))


@router.post(
    "",
    status_code=201,
    response_model=SessionOut,
    summary="Create the first administrator",
    description="Needs the one-time setup code the server logs at start-up while no account "
    "exists. Creates the administrator and signs in. 404 once any account exists; a wrong "
    "code 403 (counted like a failed sign-in: 429 after too many).",
    responses=error_responses(403, 404, 422, 429),
)
async def run_setup(
    body: SetupIn,
    request: Request,
    response: Response,
    db: SessionDep,
    settings: SettingsDep,
    passwords: PasswordsDep,
) -> SessionOut:
    throttle: Throttle = request.app.state.throttle
    address = client_address(request)
    throttle.check_sign_in(SETUP_KEY, address)
    if not await anyio.to_thread.run_sync(setup_service.is_needed, db):
        raise NotFound(setup_service.ALREADY_DONE)
    setup_service.check_rules(body.username, body.password)

    def matches() -> bool:
        return setup_service.code_matches(db, secret_key=settings.secret_key, code=body.code)

    async with throttle.password_slot():
        throttle.check_sign_in(SETUP_KEY, address)
        if not await anyio.to_thread.run_sync(matches):
            throttle.sign_in_failed(SETUP_KEY, address)
            raise Forbidden(WRONG_CODE)
        password_hash = await anyio.to_thread.run_sync(passwords.hash, body.password)

    def create() -> tuple[int, str]:
        user = setup_service.create_first_admin(
            db, username=body.username, password_hash=password_hash
        )
        user_id = user.id
        token = sessions_service.create_session(
            db,
            user_id=user_id,
            ttl=timedelta(hours=settings.session_ttl_hours),
            now=utcnow(),
            secret=settings.secret_key,
            user_agent=request.headers.get("user-agent"),
        )
        return user_id, token

    user_id, token = await anyio.to_thread.run_sync(create)
    set_session_cookie(response, request, settings, token)
    request.state.user_id = user_id
    return SessionOut(username=body.username, admin=True)
