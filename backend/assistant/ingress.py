"""Agent ingress (SPEC §4), as `turns` still names it: conversations and delivery rows.

The two jobs live in `conversations` (stored conversations and messages) and `deliveries`
(the delivery rows); new code imports those. This module only re-exports them.
"""

from backend.assistant.conversations import (
    CONVERSATION_NOT_FOUND,
    add_message,
    canonical_id,
    check_member,
    get_owned,
    list_messages,
    message_tool_calls,
    open_conversation,
    refuse_foreign,
)
from backend.assistant.deliveries import DELIVERY_TTL, Delivery, purge_expired, record_delivery

__all__ = [
    "CONVERSATION_NOT_FOUND",
    "DELIVERY_TTL",
    "Delivery",
    "add_message",
    "canonical_id",
    "check_member",
    "get_owned",
    "list_messages",
    "message_tool_calls",
    "open_conversation",
    "purge_expired",
    "record_delivery",
    "refuse_foreign",
]
