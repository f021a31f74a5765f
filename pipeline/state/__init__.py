"""What lasts between commands: the ledger, the journal, the locks, and how writers reach the memory."""
