"""Moved to agentrt.core.health (shared by the services and the client); this name stays until
every import uses the new one."""

from agentrt.core.health import *  # noqa: F403
