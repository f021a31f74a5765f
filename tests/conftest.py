"""Shared fixtures. The fake OpenAI server lives in fake_openai.py."""

from fake_openai import fake_openai  # noqa: F401
