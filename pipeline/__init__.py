"""The run: config, vault, windows, ledger, locking, the CLI and the scheduler."""
