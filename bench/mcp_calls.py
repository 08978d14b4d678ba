"""What calling a tool through MCP costs, next to a built-in tool: `python bench/mcp_calls.py`.

Starts tools_svc in-process with two MCP servers mounted: `mcp-server-time` over stdio and the
test server (tests/mcp_server.py) over Streamable HTTP in its own process, then times `InvokeTool`
round trips (gRPC to tools_svc, then the MCP session) one at a time and reports p50/p99 per tool.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentrt.config import McpServerConfig, ToolsSettings  # noqa: E402
from agentrt.core.channels import aio_channel  # noqa: E402
from agentrt.core.values import dict_to_struct  # noqa: E402
from agentrt.server.logs import configure_logging  # noqa: E402
from agentrt.v1 import tool_service_pb2, tool_service_pb2_grpc  # noqa: E402
from tests.mcp_process import McpServerProcess  # noqa: E402
from tools_svc import server as tools_server  # noqa: E402

T = tool_service_pb2
CALLS = {
    "calculator (built-in)": ("calculator", {"expression": "2+3"}),
    "time__get_current_time (stdio)": ("time__get_current_time", {"timezone": "Asia/Tokyo"}),
    "notes__echo (Streamable HTTP)": ("notes__echo", {"text": "hello"}),
}


async def main(calls: int) -> None:
    configure_logging("warning")
    http = McpServerProcess()
    await http.start()
    with tempfile.TemporaryDirectory() as data:
        settings = ToolsSettings(
            data_dir=Path(data),
            log_level="warning",
            mcp_servers=[
                McpServerConfig(name="time", command=str(Path(sys.executable).parent / "mcp-server-time")),
                McpServerConfig(name="notes", url=http.url),
            ],
        )
        built = await tools_server.build_server(settings, 0)
        await built.start()
        channel = aio_channel(f"127.0.0.1:{built.port}")
        stub = tool_service_pb2_grpc.ToolServiceStub(channel)
        try:
            while True:
                servers = (await stub.ListMcpServers(T.ListMcpServersRequest())).servers
                if all(s.state == T.MCP_SERVER_STATE_CONNECTED for s in servers):
                    break
                await asyncio.sleep(0.1)
            print(f"{'tool':<32} {'p50 ms':>8} {'p99 ms':>8}   ({calls} calls each, one at a time)")
            for label, (tool, arguments) in CALLS.items():
                request = T.InvokeToolRequest(tool=tool, arguments=dict_to_struct(arguments))
                for _ in range(20):  # warm-up
                    await stub.InvokeTool(request)
                took = []
                for _ in range(calls):
                    start = time.perf_counter()
                    await stub.InvokeTool(request)
                    took.append((time.perf_counter() - start) * 1000)
                cuts = statistics.quantiles(took, n=100)
                print(f"{label:<32} {cuts[49]:>8.2f} {cuts[98]:>8.2f}")
        finally:
            await channel.close()
            await built.stop(0)
            await http.kill()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=500)
    asyncio.run(main(parser.parse_args().calls))
