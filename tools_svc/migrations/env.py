from agentrt.server.db import run_env
from tools_svc.schema import metadata

run_env(metadata)
