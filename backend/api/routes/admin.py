"""Administrators manage accounts (SPEC §17); everyone else gets 403."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from backend.api.deps import AdminUser, PasswordsDep, SessionDep
from backend.errors import error_responses
from backend.models import User
from backend.services import accounts

router = APIRouter(prefix="/api/admin", tags=["admin"])


class UserOut(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True)

    username: str
    admin: bool
    disabled: bool = Field(description="A disabled user cannot sign in; its sign-ins ended.")
    created_at: datetime


class UsersOut(BaseModel):
    users: list[UserOut]


class NewUser(BaseModel):
    username: str = Field(max_length=1024)
    password: str = Field(max_length=1024)
    admin: bool = False


class UserChange(BaseModel):
    disabled: bool | None = None
    admin: bool | None = None

    @model_validator(mode="after")
    def one_change(self) -> UserChange:
        if self.disabled is None and self.admin is None:
            raise ValueError('give "disabled" or "admin"')
        return self


def _out(user: User) -> UserOut:
    return UserOut(
        username=user.username,
        admin=user.admin,
        disabled=user.disabled,
        created_at=user.created_at,
    )


@router.get(
    "/users",
    response_model=UsersOut,
    response_model_by_alias=True,
    summary="Every account",
    responses=error_responses(401, 403),
)
def list_users(admin: AdminUser, db: SessionDep) -> UsersOut:
    out = UsersOut(users=[_out(u) for u in accounts.list_users(db)])
    db.rollback()  # end the read
    return out


@router.post(
    "/users",
    status_code=201,
    response_model=UserOut,
    response_model_by_alias=True,
    summary="Create an account",
    description="The username and password rules give 422; a taken username 409.",
    responses=error_responses(401, 403, 409, 422),
)
def create_user(
    body: NewUser, admin: AdminUser, db: SessionDep, passwords: PasswordsDep
) -> UserOut:
    actor = admin.username
    user = accounts.create_account(
        db,
        username=body.username,
        password=body.password,
        passwords=passwords,
        admin=body.admin,
        actor=actor,
    )
    return _out(user)


@router.patch(
    "/users/{username}",
    response_model=UserOut,
    response_model_by_alias=True,
    summary="Disable, enable, grant or remove administration",
    description="Disabling ends the user's sign-ins, key sessions and live-note streams at "
    "once; its tokens stop. An administrator cannot disable themselves, and no change may "
    "leave the installation without an enabled administrator (409).",
    responses=error_responses(401, 403, 404, 409, 422),
)
def change_user(username: str, body: UserChange, admin: AdminUser, db: SessionDep) -> UserOut:
    user = accounts.change_user(
        db, actor=admin, username=username, disabled=body.disabled, admin=body.admin
    )
    return _out(user)
