"""agentrt: a runtime for AI agents run as services.

The package is split by who uses it:

- `agentrt.client.runs`: the Python client of RunService (base install)
- `agentrt.cli`: the `agentrt` command (base install; `agentrt up` needs the `server` extra)
- `agentrt.tools_sdk`: write a tool provider in Python (base install)
- `agentrt.config`: settings, read by the CLI and every service
- `agentrt.server`: what the four services share (gRPC server, storage, logs, metrics, tracing)
- `agentrt.core`: run and plan rules the services share (plans, references, statuses, schemas)
- `agentrt.v1`: the generated contracts (protobuf and gRPC)

The services themselves are the top-level packages planner_svc, executor_svc, tools_svc and gateway.
"""

__version__ = "0.1.0"
