"""Turning sources into evidence: LLM, offline, and external-preference synthesis."""
