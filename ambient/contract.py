"""The names the page and the server share: each is spelled here once, imported on both sides."""

from __future__ import annotations

HEADER_NAME = "X-Ambient-Note"  # the pointer header (ambient.pointer encodes and decodes it)
KEY_SESSION_HEADER = "X-Key-Session"  # the workspace key session a turn carries
AMBIENT_OFF_HEADER = "X-Ambient-Off"  # "1": the user switched "this note" off (no pointer)
# On a note's PUT: the save writes the screen's text after a conflict ("Keep mine"); it and
# the text it replaces are each kept as their own revision (no coalescing).
CONFLICT_RESOLUTION_HEADER = "X-Conflict-Resolution"
KEEP_MINE = "keep-mine"  # its one value
# On a note's PUT: this save carries the proposal (its id) the page just applied in the live
# editor, so the revision is the assistant's or the agent's; saves without it are the user's.
APPLIED_PROPOSAL_HEADER = "X-Applied-Proposal"

EDIT, PREVIEW, TODO, MINDMAP = "edit", "preview", "todo", "mindmap"
VIEWS = (EDIT, PREVIEW, TODO, MINDMAP)  # an Inbox frame's views, in button order

INBOX, ASSISTANT, FILES = "inbox", "assistant", "files"
FRAME_KINDS = (INBOX, ASSISTANT, FILES)  # in toolbar order

MAX_NOTE_BYTES = 1_048_576  # a note's largest UTF-8 size (the default note limit, 413 past it)
MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024  # an attachment's largest size (413 past it, SPEC §18)
MAX_IMPORT_BYTES = 512 * 1024 * 1024  # an import's entries together, uncompressed (SPEC §18)
# The files a workspace keeps as attachments (SPEC §18): extension -> the type it is served as.
ATTACHMENT_TYPES = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "svg": "image/svg+xml",
    "pdf": "application/pdf",
}
