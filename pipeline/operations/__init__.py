"""The operations both doors call: remember, forget, why, history and undo, recall, context, status, apply,
init, refresh, schedule. Each takes a vault and its configuration and returns a model with its text and JSON;
none knows click or MCP (tests/test_architecture.py)."""
