"""Generated protobuf and gRPC code for agentrt.v1. Do not edit: run `make protos`."""
