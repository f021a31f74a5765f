"""Hylo's vault over its MCP server (docs/spec.md §10): the client, and the local mirror every command works on."""
