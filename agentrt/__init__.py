"""agentrt: a runtime for AI agents run as services.

Shared package: generated contracts (`agentrt.v1`), client SDK, CLI and the plumbing every
service uses (settings, logging, errors, gRPC server bootstrap).
"""

__version__ = "0.1.0"
