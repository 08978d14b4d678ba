"""Moved to agentrt.core.channels (shared by the services and the client); this name stays until
every import uses the new one."""

from agentrt.core.channels import *  # noqa: F403
