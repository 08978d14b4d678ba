"""The `agentrt` command: runs, tools, health, `agentrt up` (needs the `server` extra) and the
local model (`local-llm` extra)."""

from agentrt.cli.main import main

__all__ = ["main"]
