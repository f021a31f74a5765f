"""The command-line door (click): each command parses its arguments, calls one operation, prints its text.

`group` names every command and loads its module only when that command runs; `quick` answers `recall`
and `context` before click loads at all. Nothing here imports the MCP door: the `mcp` command starts
the server the program plugs in (hylo_memory/console.py)."""
