"""First run (SPEC §17): a one-time setup code creates the first administrator.

The code is HMAC-SHA256(secret_key, salt) in a short human form, where the salt is random
and stored in instance_settings ("setup_salt"), inserted by whichever process comes first:
every server process sharing the database shows the same code, and someone holding only the
database (not the secret key) cannot derive it. The code appears in exactly one place: the
log line `announce` writes at start-up while no account exists.

Only one setup can ever succeed: it inserts the instance_settings row "setup_done" before it
looks for users, in the same transaction as the new administrator; a second setup at the
same moment waits on that row's primary key and then fails (404).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets

from sqlalchemy import delete, exists, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from backend.db import utcnow
from backend.errors import NotFound
from backend.models import User
from backend.models.people import InstanceSetting
from backend.services import users as users_service
from backend.services.accounts import audit

log = logging.getLogger("ambient.setup")

SALT_KEY = "setup_salt"
DONE_KEY = "setup_done"
ALREADY_DONE = "This installation is already set up: sign in instead."
CODE_GROUPS = 3  # XXXX-XXXX-XXXX: 60 bits of the HMAC in base32 (A-Z, 2-7)
GROUP = 4


def is_needed(db: Session) -> bool:
    """Whether no account exists yet (the page then shows the setup form)."""
    needed = not db.scalar(select(exists().where(User.id.is_not(None))))
    db.rollback()  # end the read
    return needed


def ensure_salt(db: Session) -> str:
    """The installation's setup salt, inserted now when absent (first process wins)."""
    salt = db.scalar(select(InstanceSetting.value).where(InstanceSetting.key == SALT_KEY))
    if salt is None:
        try:
            db.add(InstanceSetting(key=SALT_KEY, value=secrets.token_hex(16)))
            db.commit()
        except IntegrityError:  # another process inserted it first: use theirs
            db.rollback()
        salt = db.scalar(select(InstanceSetting.value).where(InstanceSetting.key == SALT_KEY))
    db.rollback()
    assert salt is not None
    return salt


def code_for(secret_key: str, salt: str) -> str:
    """The setup code for this secret and salt, as XXXX-XXXX-XXXX."""
    digest = hmac.new(
        secret_key.encode("utf-8", "surrogatepass"), salt.encode(), hashlib.sha256
    ).digest()
    text = base64.b32encode(digest).decode()[: CODE_GROUPS * GROUP]
    return "-".join(text[i : i + GROUP] for i in range(0, len(text), GROUP))


def _normalized(code: str) -> bytes:
    """What a person typed, without case, spaces or dashes."""
    kept = "".join(ch for ch in code.upper() if ch not in " -\t")
    return kept.encode("utf-8", "surrogatepass")


def code_matches(db: Session, *, secret_key: str, code: str) -> bool:
    expected = code_for(secret_key, ensure_salt(db))
    return hmac.compare_digest(_normalized(expected), _normalized(code))


def announce(maker: sessionmaker[Session], *, secret_key: str) -> bool:
    """At start-up: while no account exists, log the one line with the setup code. Whether
    it did."""
    with maker() as db:
        if not is_needed(db):
            return False
        code = code_for(secret_key, ensure_salt(db))
    # At least WARNING, and never below the configured level: the operator must see it.
    level = max(logging.WARNING, log.getEffectiveLevel())
    log.log(
        level,
        "No account exists yet: open the page and create the first administrator with "
        f"setup code {code}",
        extra={"fields": {"setup_needed": True}},
    )
    return True


def create_first_admin(db: Session, *, username: str, password_hash: str) -> User:
    """The first administrator, in one transaction that also claims "setup_done" (first);
    NotFound when any account exists or another setup got there first."""
    try:
        db.add(InstanceSetting(key=DONE_KEY, value=utcnow().isoformat()))
        db.flush()  # takes the row (and SQLite's write lock) before anything is read
    except IntegrityError:
        db.rollback()
        if is_needed(db):  # a "setup_done" left while no user exists: claim it again
            db.execute(delete(InstanceSetting).where(InstanceSetting.key == DONE_KEY))
            db.commit()
            return create_first_admin(db, username=username, password_hash=password_hash)
        raise NotFound(ALREADY_DONE) from None
    if db.scalar(select(exists().where(User.id.is_not(None)))):
        db.rollback()
        raise NotFound(ALREADY_DONE)
    user = User(username=username, password_hash=password_hash, admin=True)
    db.add(user)
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        raise NotFound(ALREADY_DONE) from None
    audit("setup done", actor=username, target=username)
    return user


def check_rules(username: str, password: str) -> None:
    """422 with the rule the first account breaks (the same rules as any account)."""
    users_service.check_new_account(username, password)
