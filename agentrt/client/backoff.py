"""Moved to agentrt.core.backoff (shared by the services and the client); this name stays until
every import uses the new one."""

from agentrt.core.backoff import *  # noqa: F403
