"""Moved to agentrt.core.values (shared by the services and the client); this name stays until
every import uses the new one."""

from agentrt.core.values import *  # noqa: F403
