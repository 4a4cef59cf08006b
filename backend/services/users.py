"""Users and password checks (argon2id)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.db import storable
from backend.errors import BadRequest, Unprocessable
from backend.models import User

MAX_USERNAME = 64
MIN_PASSWORD = 10
USERNAME_RULE = f"A username has 1 to {MAX_USERNAME} characters, each one of a-z 0-9 . _ -."
PASSWORD_RULE = f"A password has at least {MIN_PASSWORD} characters and is not the username."
_USERNAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")


def username_problem(username: str) -> str | None:
    """Why `username` cannot name a new account (SPEC §17), or None."""
    ok = 1 <= len(username) <= MAX_USERNAME and set(username) <= _USERNAME_CHARS
    return None if ok else USERNAME_RULE


def password_problem(password: str, *, username: str) -> str | None:
    """Why `password` cannot be a new password for `username` (SPEC §17), or None."""
    if len(password) < MIN_PASSWORD or password == username or not storable(password):
        return PASSWORD_RULE
    return None


def check_new_account(username: str, password: str) -> None:
    """Unprocessable (422) with the rule a new account's name or password breaks."""
    problem = username_problem(username) or password_problem(password, username=username)
    if problem:
        raise Unprocessable(problem)


def _password_bytes(password: str) -> bytes:
    # surrogatepass: a lone surrogate from JSON ("\ud800") is hashed, not a crash.
    return password.encode("utf-8", "surrogatepass")


# argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane): a sign-in costs ~25 ms
# of one core here, so sign-ins stay well under 250 ms p95 on a 2-core server (bench people);
# argon2-cffi's own default (64 MiB, 3 passes, 4 lanes) took ~200 ms a sign-in on such a
# machine under load for no lane it could use. A stored hash made with other parameters is
# rehashed with these at the user's next sign-in (`authenticate`).
HASH_PARAMETERS = {"time_cost": 2, "memory_cost": 19 * 1024, "parallelism": 1}


def default_hasher() -> PasswordHasher:
    return PasswordHasher(
        time_cost=HASH_PARAMETERS["time_cost"],
        memory_cost=HASH_PARAMETERS["memory_cost"],
        parallelism=HASH_PARAMETERS["parallelism"],
    )


def _argon2_thread() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="ana-argon2")


@dataclass
class Passwords:
    """Hashes and verifies passwords; tests swap in a cheap hasher, production keeps the default.

    Every hash and check runs on one thread of its own. argon2 takes its 19 MiB from the C
    allocator of the thread it runs in, and each worker thread has its own arena that keeps
    the memory once freed: a password attack spread over the worker threads left 19 MiB in
    each (the bench's load under attack: peak memory 1.28–1.37 of a plain run).
    """

    hasher: PasswordHasher = field(default_factory=default_hasher)
    _dummy_hash: str | None = None
    _thread: ThreadPoolExecutor = field(default_factory=_argon2_thread, repr=False, compare=False)

    def hash(self, password: str) -> str:
        return self._thread.submit(self.hasher.hash, _password_bytes(password)).result()

    def verify(self, password_hash: str, password: str) -> bool:
        check = self._thread.submit(self.hasher.verify, password_hash, _password_bytes(password))
        try:
            return check.result()
        except (VerificationError, InvalidHashError):
            return False

    def burn(self, password: str) -> None:
        """Spend the same time as a real check, so an unknown username is not revealed by timing."""
        if self._dummy_hash is None:
            self._dummy_hash = self.hash("not a real password")
        self.verify(self._dummy_hash, password)


def create_user(
    db: Session, *, username: str, password: str, passwords: Passwords, admin: bool = False
) -> User:
    if not username or not storable(username, max_length=MAX_USERNAME):
        raise BadRequest(f"A username has 1 to {MAX_USERNAME} characters.")
    user = User(username=username, password_hash=passwords.hash(password), admin=admin)
    db.add(user)
    db.commit()
    return user


def get_by_username(db: Session, *, username: str) -> User | None:
    if not storable(username, max_length=MAX_USERNAME):
        return None
    return db.scalar(select(User).where(User.username == username))


def authenticate(db: Session, *, username: str, password: str, passwords: Passwords) -> User | None:
    """The user when the credentials match, else None (same cost either way)."""
    user = get_by_username(db, username=username)
    if user is None:
        passwords.burn(password)
        return None
    if not passwords.verify(user.password_hash, password):
        return None
    if passwords.hasher.check_needs_rehash(user.password_hash):
        user.password_hash = passwords.hash(password)
        db.commit()
    return user
