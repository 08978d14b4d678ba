"""The security headers on every HTTP response of the gateway: the one place that sets them.

The live run page (gateway/static/) has buttons that approve, reject and cancel with the viewer's
key, so it must not be framed by another site (clickjacking): `frame-ancestors 'none'`, and
X-Frame-Options for browsers that predate it. Its Content-Security-Policy allows what the page
loads and nothing else: its own scripts, styles, icon, fetch and EventSource, all from this
origin, no inline script or style, no eval, no plugins, no <base>, forms posted nowhere else.
A JSON answer or a static file gets the same headers: one opened as a document is held to them
too, and nosniff keeps a browser from reading a JSON body as HTML or script.

/docs (Swagger UI from swagger_ui_bundle, served here, no CDN) has its own policy, no looser than
it needs: its one inline script allowed by its hash, and the data: images Swagger UI's stylesheet
draws its icons with.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The page's own policy; every directive not listed falls back to default-src.
PAGE_POLICY: dict[str, tuple[str, ...]] = {
    "default-src": ("'self'",),
    "script-src": ("'self'",),
    "style-src": ("'self'",),
    "img-src": ("'self'",),
    "connect-src": ("'self'",),
    "object-src": ("'none'",),
    "base-uri": ("'none'",),
    "form-action": ("'self'",),
    "frame-ancestors": ("'none'",),
}


def script_hash(script: str) -> str:
    """The CSP source that allows exactly this inline script (its text between the tags)."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def policy(scripts: Iterable[str] = (), images: Iterable[str] = ()) -> str:
    """PAGE_POLICY, with these inline scripts (by hash) and these extra image sources."""
    directives = dict(PAGE_POLICY)
    directives["script-src"] += tuple(script_hash(s) for s in scripts)
    directives["img-src"] += tuple(images)
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


def _headers(csp: str) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", csp.encode("ascii")),
        (b"x-frame-options", b"DENY"),
        (b"x-content-type-options", b"nosniff"),
        # Run ids are in the page's URL (#run=...): fragments are never sent, but no referrer
        # at all says nothing of the gateway's address to any link followed from it either.
        (b"referrer-policy", b"no-referrer"),
    ]


def default_headers() -> list[tuple[bytes, bytes]]:
    """The headers of a response with the page's policy: what an answer written below the app
    (httpconn.py's 431) carries too."""
    return _headers(policy())


class SecurityHeaders:
    """ASGI middleware: the headers on each response, a path's own CSP where it has one."""

    def __init__(self, app: ASGIApp, policies: Mapping[str, str]) -> None:
        self._app = app
        self._default = _headers(policy())
        self._by_path = {path: _headers(csp) for path, csp in policies.items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        extra = self._by_path.get(scope["path"], self._default)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                # A response that set one of them itself keeps its own (two CSPs would both apply).
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self._app(scope, receive, send_with_headers)


class SecuredStarlette(Starlette):
    """A Starlette app whose every response, its 500s included, carries the headers: the
    middleware wraps the whole stack (a middleware given to Starlette sits inside the error
    handler that answers an unhandled exception)."""

    def __init__(self, *args: Any, policies: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        self._policies = dict(policies or {})
        super().__init__(*args, **kwargs)

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack(), self._policies)
