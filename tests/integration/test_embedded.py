"""The embedded topology's start (agentrt/cli/embedded.py): the four servers in one process, and
nothing loaded that the configuration does not use."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

# What only some configurations need: the LLM stack (a model configured), MCP and A2A (a server or
# agent mounted, or their routes used), PostgreSQL's driver, the tracing SDK.
OPTIONAL = ("litellm", "openai", "tiktoken", "mcp", "a2a", "asyncpg", "opentelemetry.sdk")


def test_the_default_configuration_loads_no_optional_stack(tmp_path: Path) -> None:
    # A process of its own: this one has loaded whatever other tests needed.
    script = textwrap.dedent(
        f"""
        import asyncio, json, sys
        from pathlib import Path
        from agentrt.cli.embedded import start_embedded, stop_embedded
        from agentrt.config import Settings

        async def main():
            ports = {{f"{{name}}_port": 0 for name in ("gateway", "http", "executor", "planner", "tools")}}
            metrics = {{f"{{name}}_metrics_port": 0 for name in ("gateway", "executor", "planner", "tools")}}
            settings = Settings(data_dir=Path({str(tmp_path)!r}), log_level="error", **ports, **metrics)
            started = await start_embedded(settings)
            try:
                return [m for m in {OPTIONAL!r} if m in sys.modules], sorted(started)
            finally:
                await stop_embedded(started, 0)

        print(json.dumps(asyncio.run(main())))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded, started = json.loads(done.stdout.strip().splitlines()[-1])
    assert started == ["executor", "gateway", "planner", "tools"]
    assert loaded == []
