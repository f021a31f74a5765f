"""Config, clock and vault, shared by every room: commands -> run -> state, never back."""
