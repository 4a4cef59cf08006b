"""OAuth 2.1 for /mcp (SPEC §19), on the `mcp` SDK's authorization-server support."""
