"""Who may call `mcp --http` (docs/spec.md §9.3).

A loopback address keeps the network out, not a web page the person has open: any page may send
requests to 127.0.0.1. So a request from a browser (it says its page's `Origin`) is served only
when that page is this server's own address and port or one the person allowed; a client that is
no browser sends no `Origin` and is served. The `Host` is checked too (DNS rebinding). Both are the
SDK's own checks, given this server's exact port, made at the door: the SDK makes them only inside
a session it has already opened, so refused pages could use up its sessions. With a token set,
every request must also carry `Authorization: Bearer <token>`.
"""

from __future__ import annotations

import hmac

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from hylo_memory.pipeline.version import PROG


def own_addresses(port: int) -> list[str]:
    """This server's loopback addresses with its port, as a `Host` header says them."""
    return [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]


def origins(port: int, allowed: list[str]) -> TransportSecuritySettings:
    """The SDK's checks of `Host` and `Origin`, for this port only (its default allows any port of localhost)."""
    own = own_addresses(port)
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=own,
                                     allowed_origins=[*(f"http://{host}" for host in own), *allowed])


class Guard:
    """ASGI middleware at the door: a request for another host (421) or from a page of another origin (403)
    is refused before the SDK sees it; then, with a token, one without it (401)."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings, token: str | None) -> None:
        self.app, self.checks = app, TransportSecurityMiddleware(security)
        self.token = None if token is None else token.encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refused = await self.checks.validate_request(Request(scope), is_post=False)  # its Content-Type: the SDK's
            if refused is None and not self._carries_token(Headers(scope=scope).get("authorization", "")):
                refused = PlainTextResponse(f"{PROG}: this server asks for its token (Authorization: Bearer <token>)\n",
                                            status_code=401, headers={"WWW-Authenticate": "Bearer"})
            if refused is not None:
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _carries_token(self, authorization: str) -> bool:
        if self.token is None:
            return True
        scheme, _, given = authorization.partition(" ")
        # Compared in constant time, as bytes: a header may hold what no token does.
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode("utf-8", "replace"), self.token)
