"""Moved to agentrt.core.errors (shared by the services and the client); this name stays until
every import uses the new one."""

from agentrt.core.errors import *  # noqa: F403
