"""The domain, in a room of its own: sources, evidence, items and memory files, usage, and the dimensions with their
windows. It imports nothing of the package but the error family, so every other room may speak of them."""
