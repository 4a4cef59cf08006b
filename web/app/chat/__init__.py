"""The Assistant: its frame, the conversation, replies, proposals' cards and inline commands."""
