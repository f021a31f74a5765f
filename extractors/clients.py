"""The OpenAI SDK's clients, made one way for every extractor: all of a process's share one TLS context.

Building a context reads the system's certificates (about 40 ms of CPU); the SDK would build one per client,
and a long-lived MCP server, a batch run or an embedding thread each make many clients.
"""

from __future__ import annotations

import functools
import ssl

import openai


@functools.cache
def _tls() -> ssl.SSLContext:
    """What the SDK's own client would build (SSL_CERT_FILE and all), with the HTTP library it uses."""
    try:
        import httpx2 as http
    except ImportError:  # the SDK before httpx2
        import httpx as http  # type: ignore[no-redef,import-not-found,unused-ignore]
    return http.create_ssl_context()


def sync_client(*, api_key: str, base_url: str | None, timeout: float, max_retries: int) -> openai.OpenAI:
    return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries,
                         http_client=openai.DefaultHttpxClient(verify=_tls()))


def async_client(*, api_key: str, base_url: str | None, timeout: float, max_retries: int) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries,
                              http_client=openai.DefaultAsyncHttpxClient(verify=_tls()))
