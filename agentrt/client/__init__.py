"""The Python client of agentrt's RunService (what `pip install agentrt` is for).

    from agentrt.client import Client, result_value
    with Client("127.0.0.1:50051") as client:
        run = client.create_run("calculate (10 + 5) * 2")

Needs grpcio and protobuf only: no service, LLM or database dependency.
"""

from agentrt.client.runs import Client, ClientError, result_value, to_dict
from agentrt.core.errors import AgentrtError, ErrorDetails

__all__ = ["AgentrtError", "Client", "ClientError", "ErrorDetails", "result_value", "to_dict"]
