"""Moved to agentrt.core.text (shared by the services and the client); this name stays until
every import uses the new one."""

from agentrt.core.text import *  # noqa: F403
