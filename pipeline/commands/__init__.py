"""The command line and what only it needs: cli, apply, remember, status, schedule."""
