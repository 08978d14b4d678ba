from agentrt.server.db import run_env
from executor_svc.schema import metadata

run_env(metadata)
