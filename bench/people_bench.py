"""People and workspaces (SPEC §17): what a sign-in costs with argon2id, and what the role
check adds to a save.

- Sign-in: `POST /api/session` on a real demo server (argon2id at argon2-cffi's defaults,
  the parameters the product uses), against the cheapest signed-in request, `GET
  /api/session` (the cookie check every request pays), interleaved. The goal is absolute: a
  sign-in's p95 under 250 ms on this machine.
- The role check: the sign-in lookup of a workspace route now reads the member's role in the
  same one query that read the membership before. Both query shapes run in-process on the
  server's database file, interleaved; the save figure adds their difference to a timed
  `PUT` of a small note: (save + role query − membership query) / save, goal ≤ 1.05.
"""

from __future__ import annotations

import time
from datetime import timedelta

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from backend.db import build_engine, utcnow
from backend.models import Membership, User, UserSession
from backend.services import sessions
from backend.services.users import default_hasher
from bench.plan import Plan
from bench.servers import USER, WORKSPACE, Client, app_server
from bench.stats import figure, percentile

SAVE_NOTE = "bench/role-check.md"
SIGN_INS = {"full": 40, "quick": 20, "smoke": 4}
QUERIES = {"full": 400, "quick": 200, "smoke": 20}


def _log(msg: str) -> None:
    print(f"  {msg}", flush=True)


def _ms(fn, calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1000


def _sign_in_figure(plan: Plan, url: str) -> dict:
    client = Client(url)
    singles: list[float] = []

    def sign_in() -> None:
        t0 = time.perf_counter()
        r = client.http.post("/api/session", json={"username": USER[0], "password": USER[1]})
        r.raise_for_status()
        singles.append((time.perf_counter() - t0) * 1000)

    def who() -> None:
        client.http.get("/api/session").raise_for_status()

    subject, baseline = [], []
    count = SIGN_INS[plan.mode]
    for rep in range(plan.reps):
        for side in ("in", "who") if rep % 2 == 0 else ("who", "in"):
            if side == "in":
                subject.append(_ms(sign_in, count))
            else:
                baseline.append(_ms(who, count))
    client.close()
    hasher = default_hasher()
    p95 = percentile(singles, 95) or 0.0
    return figure(
        "Sign-in with argon2id (POST /api/session / GET /api/session)",
        subject,
        baseline,
        unit="ms/request",
        goal="p95 < 250 ms",
        note=f"argon2id t={hasher.time_cost}, m={hasher.memory_cost} KiB, "
        f"p={hasher.parallelism}; sign-in p50 {percentile(singles, 50) or 0:.0f} ms, "
        f"p95 {p95:.0f} ms over {len(singles)} sign-ins "
        f"({'met' if p95 < 250 else 'NOT met'}); sequential, over HTTP",
    )


def _membership_only(db: Session, session_id: str, ws: str) -> object:
    """The sign-in lookup as it was before roles: the membership's existence."""
    query = (
        select(User, UserSession.expires_at, Membership.user_id.label("member"))
        .join(UserSession, UserSession.user_id == User.id)
        .outerjoin(Membership, and_(Membership.user_id == User.id, Membership.workspace_id == ws))
    )
    return db.execute(query.where(UserSession.id == session_id)).first()


def _role_figure(plan: Plan, url: str, database_url: str) -> dict:
    client = Client(url)
    client.put_note(SAVE_NOTE, "# Role check\n\nA small note.\n")
    engine = build_engine(database_url)
    secret = "bench-secret"
    with Session(engine) as db:
        user_id = db.scalar(select(User.id).where(User.username == USER[0]))
        token = sessions.create_session(
            db, user_id=user_id, ttl=timedelta(hours=1), now=utcnow(), secret=secret
        )
    session_id = sessions.token_id(token, secret)
    calls = QUERIES[plan.mode]
    n = 0

    def save() -> None:
        nonlocal n
        n += 1
        text = f"# Role check\n\nA small note, save {n}.\n"
        client.put_note(SAVE_NOTE, text)

    role_ms, member_ms, save_ms = [], [], []
    with Session(engine) as db:
        for rep in range(plan.reps):
            pair = [
                lambda: sessions.member_for_token(
                    db, token=token, now=utcnow(), secret=secret, workspace_id=WORKSPACE
                ),
                lambda: _membership_only(db, session_id, WORKSPACE),
            ]
            if rep % 2:
                pair.reverse()
            first, second = (_ms(fn, calls) for fn in pair)
            role, member = (first, second) if rep % 2 == 0 else (second, first)
            role_ms.append(role)
            member_ms.append(member)
            db.rollback()
            save_ms.append(_ms(save, max(4, plan.tool_calls)))
    engine.dispose()
    client.close()
    with_role = [s + r - m for s, r, m in zip(save_ms, role_ms, member_ms, strict=True)]
    extra = sorted(r - m for r, m in zip(role_ms, member_ms, strict=True))
    return figure(
        "A save with the role check (save + role lookup − membership lookup / save)",
        with_role,
        save_ms,
        unit="ms/save",
        goal="≤ 1.05",
        limit=1.05,
        note=f"the role is read in the sign-in's one query; lookup difference median "
        f"{extra[len(extra) // 2] * 1000:.0f} µs over {calls} queries per repetition; "
        "saves over HTTP on SQLite",
    )


def people(plan: Plan) -> list[dict]:
    with app_server() as server:
        database_url = f"sqlite:///{server.data_dir}/ambient.db"
        figures = [_sign_in_figure(plan, server.url)]
        _log("sign-in done")
        figures.append(_role_figure(plan, server.url, database_url))
        _log("role check done")
    return figures
