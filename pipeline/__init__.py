"""The pipeline: config, clock and version at its top, shared by its rooms (docs/development.md): the doors
(cli, mcp) → operations → run → state → vaults → notes, never back."""
