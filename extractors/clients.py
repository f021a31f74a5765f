"""The OpenAI SDK's clients, made one way for every extractor: all of a process's share one TLS context.

Building a context reads the system's certificates (about 40 ms of CPU); the SDK would build one per client,
and a long-lived MCP server, a batch run or an embedding thread each make many clients.
"""

from __future__ import annotations

import functools
import ssl
import sys

import openai


@functools.cache
def _tls() -> ssl.SSLContext:
    """What the SDK's own client would build, by the HTTP library its client is made of (httpx2, or httpx before
    it): SSL_CERT_FILE and SSL_CERT_DIR as they are when the first client is made, for the process's life."""
    library = sys.modules[openai.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0]]
    context: ssl.SSLContext = library.create_ssl_context()
    return context


def sync_client(*, api_key: str, base_url: str | None, timeout: float, max_retries: int) -> openai.OpenAI:
    return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries,
                         http_client=openai.DefaultHttpxClient(verify=_tls()))


def async_client(*, api_key: str, base_url: str | None, timeout: float, max_retries: int) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries,
                              http_client=openai.DefaultAsyncHttpxClient(verify=_tls()))
