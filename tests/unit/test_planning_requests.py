"""The executor's requests to the planner carry the catalog as held at the time of each request."""

from agentrt.v1 import planner_service_pb2, tool_pb2, tool_service_pb2
from executor_svc.run.planning import Planning


class HeldCatalog:
    """Stands in for ToolCatalog: what held() answers (a new object on every change, as there)."""

    def __init__(self) -> None:
        self.catalog: tool_service_pb2.ListToolsResponse | None = None

    def held(self) -> tool_service_pb2.ListToolsResponse | None:
        return self.catalog


def catalog(health: int) -> tool_service_pb2.ListToolsResponse:
    tools = [
        tool_pb2.Tool(name=name, description=f"{name} tool", health=health)
        for name in ("calculator", "todo_store")
    ]
    return tool_service_pb2.ListToolsResponse(tools=tools, catalog_version="v1")


def test_each_request_holds_the_catalog_held_when_it_is_made() -> None:
    held = HeldCatalog()
    planning = Planning(None, held, None)  # type: ignore[arg-type]  # only requests are made here
    kinds = {
        planner_service_pb2.CreatePlanRequest: {
            "prompt": "add milk",
            "max_steps": 3,
            "rules_only": True,
            "catalog_version": "v1",
        },
        planner_service_pb2.DecideRequest: {"prompt": "add milk", "turn": 2, "tokens_left": 10},
    }
    # Health changes keep the catalog's version (calls do not depend on it), not the object.
    for health in (
        tool_pb2.TOOL_HEALTH_HEALTHY,
        tool_pb2.TOOL_HEALTH_HEALTHY,
        tool_pb2.TOOL_HEALTH_UNREACHABLE,
    ):
        held.catalog = catalog(health)
        for kind, fields in kinds.items():
            for _ in range(2):  # the second copies from the request built by the first
                request = planning._with_tools(kind, held.catalog, **fields)
                assert request == kind(tools=held.catalog.tools, **fields)
    live = catalog(tool_pb2.TOOL_HEALTH_HEALTHY)  # not the held one (ListTools while not in sync)
    request = planning._with_tools(planner_service_pb2.CreatePlanRequest, live, prompt="x")
    assert request == planner_service_pb2.CreatePlanRequest(tools=live.tools, prompt="x")
