"""The security headers on the gateway's HTTP responses (gateway/securityheaders.py): the live run
page, its files, /docs and the API's answers; the browser test shows Chromium holds the page to
them (tests/e2e/test_browser.py)."""

from __future__ import annotations

import re

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gateway.rest import _DOCS_SCRIPT
from gateway.securityheaders import SecuredStarlette, script_hash
from tests.conftest import Stack

COMMON = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def directives(csp: str) -> dict[str, list[str]]:
    parsed = {}
    for part in csp.split(";"):
        name, *sources = part.split()
        assert name not in parsed, f"{name} twice in {csp}"
        parsed[name] = sources
    return parsed


def assert_page_policy(response: httpx.Response) -> dict[str, list[str]]:
    for name, value in COMMON.items():
        assert response.headers.get(name) == value, (response.url, name)
    assert len(response.headers.get_list("content-security-policy")) == 1
    csp = directives(response.headers["content-security-policy"])
    assert csp["default-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    assert csp["form-action"] == ["'self'"]
    # Nothing inline but what is named by hash, and no eval, anywhere.
    for name in ("script-src", "style-src", "img-src", "connect-src"):
        assert not {"'unsafe-inline'", "'unsafe-eval'", "*"} & set(csp[name]), (name, csp[name])
    return csp


@pytest.fixture
async def client(stack: Stack) -> httpx.AsyncClient:
    async with httpx.AsyncClient(base_url=stack.http, timeout=20) as c:
        yield c


@pytest.mark.parametrize(
    "path",
    ["/", "/static/app.js", "/static/style.css", "/favicon.ico", "/openapi.json", "/healthz", "/v1/runs"],
)
async def test_the_page_its_files_and_the_api_carry_the_headers(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 200, response.text
    csp = assert_page_policy(response)
    assert csp["script-src"] == ["'self'"]  # the page itself has no inline script at all


async def test_the_page_loads_nothing_inline(client: httpx.AsyncClient) -> None:
    """What the policy refuses must not be on the page: no inline script, style or handler."""
    html = (await client.get("/")).text
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)
    assert not re.search(r"<style|\sstyle=|\son[a-z]+=", html)
    script = (await client.get("/static/app.js")).text
    assert not re.search(r"\beval\(|new Function|\.innerHTML\b|setAttribute\(\"style", script)


async def test_docs_allows_its_one_inline_script_by_hash(client: httpx.AsyncClient) -> None:
    response = await client.get("/docs")
    assert response.status_code == 200
    csp = assert_page_policy(response)
    inline = re.findall(r"<script>(.*?)</script>", response.text, re.S)
    assert inline == [_DOCS_SCRIPT]
    assert csp["script-src"] == ["'self'", script_hash(_DOCS_SCRIPT)]
    assert csp["img-src"] == ["'self'", "data:"]  # Swagger UI's stylesheet draws icons with data: URIs
    # Its assets are the gateway's own (swagger_ui_bundle), not a CDN's.
    assert re.findall(r'(?:src|href)="([^"]+)"', response.text) == [
        "/docs/assets/swagger-ui.css",
        "/docs/assets/swagger-ui-bundle.js",
    ]
    asset = await client.get("/docs/assets/swagger-ui-bundle.js")
    assert_page_policy(asset)


async def test_errors_and_streams_carry_them_too(client: httpx.AsyncClient) -> None:
    answers = [
        await client.get("/no/such/page"),
        await client.post("/v1/runs", content=b"{", headers={"content-type": "application/json"}),
        await client.delete("/"),
    ]
    assert [a.status_code for a in answers] == [404, 400, 405]
    for answer in answers:
        assert_page_policy(answer)
    run = (await client.post("/v1/runs", json={"prompt": "calculate 1 + 1"})).json()["run"]
    async with client.stream("GET", f"/v1/runs/{run['runId']}/events") as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        assert_page_policy(response)


async def test_an_unhandled_exceptions_500_carries_them() -> None:
    """The middleware wraps Starlette's error handler too: a 500 is a response like another."""

    async def boom(request: Request) -> Response:
        raise RuntimeError("boom")

    async def handler(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": "internal"}, 500)

    app = SecuredStarlette(routes=[Route("/boom", boom)], exception_handlers={Exception: handler})
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
        response = await client.get("/boom")
    assert response.status_code == 500
    assert_page_policy(response)


async def test_a_response_that_sets_a_header_keeps_its_own() -> None:
    async def framed(request: Request) -> Response:
        return Response("ok", headers={"X-Frame-Options": "SAMEORIGIN"})

    app = SecuredStarlette(routes=[Route("/", framed)], policies={"/": "default-src 'none'"})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway") as client:
        response = await client.get("/")
    assert response.headers.get_list("x-frame-options") == ["SAMEORIGIN"]
    assert response.headers["content-security-policy"] == "default-src 'none'"
