"""One refresh: window, collect, profile, extraction, summary, refresh."""
