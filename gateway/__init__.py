"""gateway: the public edge. Serves agentrt.v1.RunService and forwards to the executor."""
