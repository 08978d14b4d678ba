"""One line for a problem a person can fix: what went wrong, where, and what to do.

The CLI prints these instead of a transport's text or a traceback (`agentrt --debug ...` adds
the traceback). The services' start-up problems have their own line (`StartupError`, said by
agentrt/server/service_main.py).
"""

from __future__ import annotations

import grpc

from agentrt.core.channels import unreachable_cause
from agentrt.core.errors import ErrorDetails

START_HINT = "start agentrt with `make up` (or `agentrt up`)"


def unreachable(details: ErrorDetails, what: str, target: str, point: str) -> str | None:
    """The line for a call that no server answered (gRPC's own UNAVAILABLE or deadline, with no
    server's details); None for an error a server sent, which says enough itself. `what` names
    the service ("the gateway"), `point` how to aim elsewhere ("--target or $AGENTRT_TARGET")."""
    if details.explained:
        return None
    if details.code == grpc.StatusCode.UNAVAILABLE:
        return (
            f"nothing answers at {target}, where {what} should be ({unreachable_cause(details.message)}): "
            f"{START_HINT}, or point {point} at a running one"
        )
    if details.code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return (
            f"{what} at {target} did not answer in time: it may be overloaded or starting; "
            f"`agentrt health` checks it"
        )
    return None


def tools_problem(err: grpc.RpcError, target: str) -> str:
    """What `agentrt tools ...` says when its call to tools_svc failed."""
    details = ErrorDetails.from_rpc_error(err)
    line = unreachable(details, "tools_svc", target, "--tools-addr or $AGENTRT_TOOLS_ADDR")
    return line or f"{details.code.name}: {details.message}"
