"""The MCP server for the user's own agents (SPEC §10), mounted at /mcp in the same app."""
