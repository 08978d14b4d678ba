"""The REST edge holds requests to what its OpenAPI document states, no more and no less: a
method a path lacks is a 405 naming the ones it has, a query parameter is one value of its type,
a body has the JSON types the document gives (not json_format's leniencies), and every value the
document allows is accepted. Against the in-process stack over real HTTP."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest

from tests.conftest import Stack


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.http, timeout=20) as c:
        yield c


async def test_a_method_a_path_lacks_is_a_405_whose_allow_names_the_documented_methods(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/openapi.json")).json()
    for template, operations in document["paths"].items():
        path = re.sub(r"\{[a-z_]+\}", "x", template)
        for method in ("TRACE", "PATCH", "OPTIONS"):
            response = await client.request(method, path)
            assert response.status_code == 405, (method, path, response.text)
            allowed = {m.strip() for m in response.headers["allow"].split(",")} - {"HEAD"}
            # /v1/runs/x:cancel is its own resource, though /v1/runs/{run_id} matches it too.
            assert allowed == {verb.upper() for verb in operations}, (method, path)
            assert response.json()["error"]["details"][0]["reason"] == "UNIMPLEMENTED"


@pytest.mark.parametrize(
    "query",
    [
        "page_size=1&page_size=x",
        "page_size=2&page_size=2",
        "page_size=2&pageSize=3",
        "status=failed&status=succeeded",
        "owner=a&owner=b",
        "page_size=",
        "status=",
        "status=Failed",
        "status=%20failed",
        "page_size=-1",
        "page_size=1.0",
    ],
)
async def test_a_query_parameter_is_one_value_of_its_documented_type(
    client: httpx.AsyncClient, query: str
) -> None:
    response = await client.get(f"/v1/runs?{query}")
    assert response.status_code == 400, response.text
    assert response.json()["error"]["status"] == "INVALID_ARGUMENT"


@pytest.mark.parametrize(
    "query",
    [
        "status=RUN_STATUS_UNSPECIFIED",
        "status=unspecified",
        "status=RUN_STATUS_FAILED",
        "status=failed",
        "owner=",
    ],
)
async def test_every_documented_spelling_of_a_query_parameter_is_accepted(
    client: httpx.AsyncClient, query: str
) -> None:
    response = await client.get(f"/v1/runs?{query}")
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"prompt": None}, "prompt"),
        ({"prompt": "add 1 and 1", "maxSteps": "5"}, "maxSteps"),
        ({"prompt": "add 1 and 1", "maxSteps": None}, "maxSteps"),
        ({"prompt": "add 1 and 1", "mode": 1}, "mode"),
        ({"prompt": "add 1 and 1", "budgets": {"maxCostUsd": "0.5"}}, "budgets.maxCostUsd"),
        ({"prompt": "add 1 and 1", "budgets": {"maxTokens": "+5"}}, "budgets.maxTokens"),
        ({"prompt": "add 1 and 1", "retryPolicy": None}, "retryPolicy"),
        ({"prompt": "add 1 and 1", "idempotencyKey": "k"}, "Idempotency-Key header"),
    ],
)
async def test_a_body_json_format_would_take_but_the_document_refuses_is_a_400(
    client: httpx.AsyncClient, body: dict, fragment: str
) -> None:
    response = await client.post("/v1/runs", json=body)
    assert response.status_code == 400, response.text
    assert fragment in response.json()["error"]["message"]
    assert (await client.get("/v1/runs")).json() == {}  # and nothing was created


@pytest.mark.parametrize(
    "body",
    [
        {"prompt": "add 1 and 1", "max_steps": 5},  # proto3 JSON: the .proto name too
        {"prompt": "add 1 and 1", "budgets": {"maxTokens": 5}},  # int64 as a number
        {"prompt": "add 1 and 1", "budgets": {"maxTokens": "0005"}},  # or a decimal string
        {"prompt": "add 1 and 1", "timeout": "0086400.000s", "approvalTimeout": "0.000000001s"},
        {"prompt": "add 1 and 1", "retryPolicy": {"baseDelay": "-0s", "maxAttempts": 0}},
    ],
)
async def test_a_body_the_document_allows_is_accepted(client: httpx.AsyncClient, body: dict) -> None:
    response = await client.post("/v1/runs", json=body)
    assert response.status_code == 200, response.text


async def test_fields_the_path_gives_are_not_taken_from_the_body(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/runs/r1/steps/s1:approve", json={"runId": "r2"})
    assert response.status_code == 400
    assert "run_id goes in the path" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("run_id", "status"),
    [("r" * 64, 404), ("r" * 65, 400), ("é日本", 404), ("%E2%80%AE", 400), ("%0A", 400), ("a%20b", 404)],
)
async def test_run_ids_are_refused_exactly_where_the_document_says(
    client: httpx.AsyncClient, run_id: str, status: int
) -> None:
    # 64 printable characters (the space among them) are a run id that may exist; more, or a
    # format or control character, is not one (400 rather than 404).
    assert (await client.get(f"/v1/runs/{run_id}")).status_code == status


async def test_a_page_token_is_a_position_any_well_formed_one_continues_from(
    client: httpx.AsyncClient,
) -> None:
    for n in range(3):
        assert (await client.post("/v1/runs", json={"prompt": f"add {n} and 1"})).status_code == 200
    first = (await client.get("/v1/runs", params={"page_size": 2})).json()
    token = first["nextPageToken"]
    assert re.fullmatch(r"[0-9]{1,16}\.[0-9a-f]{32}", token)
    rest = (await client.get("/v1/runs", params={"page_size": 2, "page_token": token})).json()
    assert len(first["runs"]) + len(rest["runs"]) == 3 and "nextPageToken" not in rest
    # A position before every run: an empty page, not an error. Another filter: the same position.
    assert (await client.get("/v1/runs", params={"page_token": "0." + "0" * 32})).json() == {}
    filtered = await client.get("/v1/runs", params={"page_token": token, "status": "failed"})
    assert filtered.status_code == 200
    for forged in ("0.", "x." + "0" * 32, "1." + "0" * 31, "1." + "A" * 32, "1" * 17 + "." + "0" * 32):
        response = await client.get("/v1/runs", params={"page_token": forged})
        assert response.status_code == 400 and response.json()["error"]["message"] == "invalid page_token"
