"""A provider tool for process tests: it holds its call until a file appears (a gate another
process opens), first leaving a mark that it was entered.

    agentrt tools serve tests.e2e.gated_tool:wait_for_gate
"""

from __future__ import annotations

import time
from pathlib import Path

from agentrt.tools_sdk import tool


@tool(name="wait_for_gate", version="1.0.0")
def wait_for_gate(gate: str) -> dict[str, str]:
    """Waits until the file `gate` exists.

    Args:
        gate: The file whose appearance opens the gate.
    """
    path = Path(gate)
    Path(f"{gate}.entered").touch()
    while not path.exists():
        time.sleep(0.05)  # a file, another process's: no event to wait on (the SDK runs this in a thread)
    return {"gate": f"{path.name} is open"}
