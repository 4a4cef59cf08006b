"""Demo data for `serve.py --demo`: alice, bob, three workspaces and notes worth trying."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.models import User
from backend.services import documents as documents_service
from backend.services import users as users_service
from backend.services import workspaces as workspaces_service
from backend.services.source import Source
from backend.services.users import Passwords

DEMO_USERS = (("alice", "alice"), ("bob", "bob"))
DEMO_ADMIN = "alice"
# The first member of each workspace owns it; the others are editors (SPEC §6, §17).
DEMO_WORKSPACES = (
    ("personal", "Personal", ("alice",)),
    ("team", "Team", ("alice", "bob")),
    ("bob-notes", "Bob's notes", ("bob",)),
)
LONG_NOTE_TARGET_BYTES = 80 * 1024

WELCOME = """# Welcome to Ambient Note Awareness

Open a note from the list, then ask the assistant about it:

- "Summarise this"
- "What are the open todos in this note?"
- 「このノートを要約して」

The assistant reads the note you are looking at; the text never rides along with your message.
Open two notes side by side and click into one: that is the one "this note" means.
"""

TODO = """# Todo

- [ ] Write the quarterly review
- [x] Book the team offsite venue
- [ ] Reply to Carol about the roadmap
- [ ] Renew the domain name
- [x] Back up the laptop
- [ ] Try the mind map view on projects/roadmap.md
"""

JAPANESE = """# 今日のメモ

## やること

- [ ] 企画書の下書きを仕上げる
- [x] 田中さんにメールを返信する
- [ ] 週末の買い物リストを作る

## 気づいたこと

午前中は集中しやすい。会議は午後にまとめると効率がよい。

### 読書メモ

『吾輩は猫である』を少し読んだ。語り口がおもしろい。
"""

ROADMAP = """# Roadmap

## Q1: Foundations

### Editor
- Split frames
- Keyboard shortcuts

### Sync
- Conflict detection with revisions
- Offline drafts

## Q2: Assistant

### Reading notes
- Read the active note
- Caveat when the saved copy is behind

### Writing help
- Summaries
- Todo extraction

## Q3: Sharing

### Workspaces
- Team workspaces
- Member roles
"""

MIND_MAP = """# Trip planning

## Destinations
### Kyoto
#### Temples
#### Food markets
### Osaka
#### Street food

## Budget
### Transport
#### Rail pass
### Lodging

## Packing
### Clothes
### Gadgets
#### Chargers
#### Adapter
"""

TEAM_NOTES = {
    "meeting-notes.md": """# Weekly sync

## Decisions
- Ship the ambient chip behind a toggle
- Keep notes under 1 MiB

## Action items
- [ ] Alice: write the release notes
- [ ] Bob: check the PostgreSQL backups
""",
    "projects/launch-plan.md": """# Launch plan

## Before launch
- [x] Security review
- [ ] Load test the document API

## Launch day
- [ ] Announce in the newsletter
""",
}

BOB_NOTES = {
    "ideas.md": """# Ideas

- A reading list that links to notes
- Weekly review template
""",
    "recipes/curry.md": """# Curry

## Ingredients
- Onions, garlic, ginger
- Curry roux

## Steps
1. Fry the onions until golden.
2. Add the rest and simmer for 20 minutes.
""",
}

_TOPICS = (
    "indexing",
    "caching",
    "replication",
    "backups",
    "migrations",
    "monitoring",
    "search",
    "permissions",
    "rate limits",
    "observability",
    "deployment",
    "testing",
)
_VERBS = ("reviews", "measures", "documents", "compares", "simplifies", "stabilises")
_OBJECTS = (
    "the write path",
    "the read path",
    "the slow queries",
    "the error budget",
    "the on-call handbook",
    "the cold start",
    "the storage layout",
    "the retry policy",
)


def long_reference_note(target_bytes: int = LONG_NOTE_TARGET_BYTES) -> str:
    """A deterministic, real-looking Markdown document of about `target_bytes` bytes."""
    lines = [
        "# Engineering reference",
        "",
        "A long note for trying partial reads: the assistant reads the first 64 KiB by default.",
        "",
    ]
    section = 0
    while len("\n".join(lines).encode("utf-8")) < target_bytes:
        section += 1
        topic = _TOPICS[section % len(_TOPICS)]
        lines += [f"## {section}. {topic.capitalize()}", ""]
        for para in range(3):
            sentences = [
                f"Step {para + 1} {_VERBS[(section + i) % len(_VERBS)]} "
                f"{_OBJECTS[(section * 3 + para + i) % len(_OBJECTS)]} for {topic}."
                for i in range(4)
            ]
            lines += [" ".join(sentences), ""]
        lines += [
            f"- [ ] Follow up on {topic} ({section})",
            f"- [x] Draft the {topic} checklist",
            "",
        ]
    lines.append("## End of reference")
    return "\n".join(lines) + "\n"


def demo_notes() -> dict[str, dict[str, str]]:
    """Every demo note by workspace id and path."""
    return {
        "personal": {
            "welcome.md": WELCOME,
            "todo.md": TODO,
            "日記/今日のメモ.md": JAPANESE,
            "projects/roadmap.md": ROADMAP,
            "trip-planning.md": MIND_MAP,
            "reference/long-notes.md": long_reference_note(),
        },
        "team": TEAM_NOTES,
        "bob-notes": BOB_NOTES,
    }


def seed_demo(db: Session, *, passwords: Passwords) -> bool:
    """Seed a fresh database; returns False (and changes nothing) when any user exists.

    Only an empty database is seeded, so restarts never duplicate data nor resurrect notes
    the user deleted.
    """
    if _has_users(db):
        return False
    try:
        _seed(db, passwords=passwords)
    except IntegrityError:
        # Another instance started on the same database at the same moment and won.
        db.rollback()
        return False
    return True


def _has_users(db: Session) -> bool:
    return bool(db.scalar(select(func.count()).select_from(User)))


def _seed(db: Session, *, passwords: Passwords) -> None:
    ids = {}
    for username, password in DEMO_USERS:
        user = users_service.create_user(
            db,
            username=username,
            password=password,
            passwords=passwords,
            admin=username == DEMO_ADMIN,
        )
        ids[username] = user.id
    for workspace_id, name, members in DEMO_WORKSPACES:
        workspaces_service.create_workspace(
            db, workspace_id=workspace_id, name=name, member_ids=[ids[m] for m in members]
        )
    for workspace_id, notes in demo_notes().items():
        for path, text in notes.items():
            documents_service.save_document(
                db,
                workspace_id=workspace_id,
                path=path,
                content=text,
                max_bytes=1 << 30,
                source=Source.demo(),  # history: the demo's sample note
                create_only=True,
            )
