"""What the four services have in common: settings come from agentrt.config; here are the gRPC
server (grpcserver), the process entry point (service_main), storage (db, pgnotify), logging,
metrics and tracing, and periodic background work. The tool SDK uses grpcserver and logs too,
so those two need only the base install."""
