"""The signed-in user's own account (SPEC §17): password, sign-ins and display preferences."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import anyio.to_thread
from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from backend.api.deps import CurrentUser, PasswordsDep, SessionDep
from backend.db import utcnow
from backend.errors import Forbidden, Unprocessable, error_responses
from backend.limits.throttle import Throttle, client_address
from backend.services import accounts
from backend.services import preferences as preferences_service
from backend.services import users as users_service

router = APIRouter(prefix="/api/account", tags=["account"])

WRONG_CURRENT = "The current password is not correct."


class PasswordChange(BaseModel):
    current: str = Field(min_length=1, max_length=1024)
    new: str = Field(min_length=1, max_length=1024)


class SignInOut(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)

    id: str = Field(description="A public id for this sign-in (not its cookie or row id).")
    created_at: datetime
    last_seen_at: datetime | None = Field(description="Moves at most once a minute.")
    user_agent: str | None
    current: bool = Field(description="Whether this is the sign-in making the request.")


class SignInsOut(BaseModel):
    sessions: list[SignInOut]


class Preferences(BaseModel):
    """The user's display preferences (issue 34); every field is required on PUT."""

    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, extra="forbid")

    theme: Literal["light", "dark", "system"] = Field(
        description="light, dark, or system (follow the device's setting)."
    )
    font_size: int = Field(
        ge=preferences_service.FONT_SIZE_MIN,
        le=preferences_service.FONT_SIZE_MAX,
        strict=True,
        description="The note editor's font size in CSS pixels (12–24; default 15).",
    )
    sidebar_collapsed: bool = Field(
        strict=True, description="Whether the note list is folded away."
    )

    @classmethod
    def of(cls, prefs: preferences_service.Prefs) -> Preferences:
        return cls(
            theme=prefs.theme,  # type: ignore[arg-type]  # stored values passed this model
            font_size=prefs.font_size,
            sidebar_collapsed=prefs.sidebar_collapsed,
        )


def _current_row_id(request: Request) -> str | None:
    return getattr(request.state, "user_session_id", None)


@router.put(
    "/password",
    status_code=204,
    response_class=Response,
    summary="Change my password",
    description="Needs the current password (a wrong one counts as a failed sign-in for the "
    "throttle: 429 after 5 a minute). On success every other sign-in of the user ends.",
    responses=error_responses(401, 403, 422, 429),
)
async def change_password(
    body: PasswordChange,
    request: Request,
    user: CurrentUser,
    db: SessionDep,
    passwords: PasswordsDep,
) -> Response:
    throttle: Throttle = request.app.state.throttle
    address = client_address(request)
    username = user.username
    throttle.check_sign_in(username, address)
    problem = users_service.password_problem(body.new, username=username)
    if problem:
        raise Unprocessable(problem)
    current_hash = user.password_hash
    async with throttle.password_slot():
        throttle.check_sign_in(username, address)
        ok = await anyio.to_thread.run_sync(passwords.verify, current_hash, body.current)
        if not ok:
            throttle.sign_in_failed(username, address)
            raise Forbidden(WRONG_CURRENT)
        new_hash = await anyio.to_thread.run_sync(passwords.hash, body.new)
    throttle.sign_in_succeeded(username)
    keep = _current_row_id(request)

    def store() -> None:
        accounts.set_password(
            db, user=user, password_hash=new_hash, keep_row_id=keep, actor=username
        )

    await anyio.to_thread.run_sync(store)
    return Response(status_code=204)


@router.get(
    "/sessions",
    response_model=SignInsOut,
    response_model_by_alias=True,
    summary="My sign-ins",
    responses=error_responses(401),
)
def list_sessions(request: Request, user: CurrentUser, db: SessionDep) -> SignInsOut:
    views = accounts.list_sign_ins(
        db, user_id=user.id, current_row_id=_current_row_id(request), now=utcnow()
    )
    return SignInsOut(
        sessions=[
            SignInOut(
                id=v.id,
                created_at=v.created_at,
                last_seen_at=v.last_seen_at,
                user_agent=v.user_agent,
                current=v.current,
            )
            for v in views
        ]
    )


@router.delete(
    "/sessions/{session_id}",
    status_code=204,
    response_class=Response,
    summary="End one of my sign-ins",
    description="Its key sessions end too and its live-note streams close.",
    responses=error_responses(401, 404),
)
def end_session(session_id: str, user: CurrentUser, db: SessionDep) -> Response:
    accounts.end_one_sign_in(db, user=user, public_id=session_id)
    return Response(status_code=204)


@router.delete(
    "/sessions",
    status_code=204,
    response_class=Response,
    summary="End all my other sign-ins",
    responses=error_responses(401),
)
def end_other_sessions(request: Request, user: CurrentUser, db: SessionDep) -> Response:
    accounts.end_other_sign_ins(db, user=user, keep_row_id=_current_row_id(request))
    return Response(status_code=204)


@router.get(
    "/preferences",
    response_model=Preferences,
    response_model_by_alias=True,
    summary="My display preferences",
    description="Theme, editor font size and sidebar state; the defaults until first saved.",
    responses=error_responses(401),
)
def get_preferences(user: CurrentUser, db: SessionDep) -> Preferences:
    return Preferences.of(preferences_service.get_preferences(db, user_id=user.id))


@router.put(
    "/preferences",
    response_model=Preferences,
    response_model_by_alias=True,
    summary="Save my display preferences",
    description="Replaces all three values (each is required); answers what is now stored. "
    "A theme other than light, dark or system, a font size outside 12–24 or an unknown "
    "field is 422.",
    responses=error_responses(401, 422),
)
def put_preferences(body: Preferences, user: CurrentUser, db: SessionDep) -> Preferences:
    prefs = preferences_service.Prefs(body.theme, body.font_size, body.sidebar_collapsed)
    return Preferences.of(preferences_service.set_preferences(db, user_id=user.id, prefs=prefs))
