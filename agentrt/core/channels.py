"""gRPC channels between agentrt services.

Retries have one owner per layer. Channels used by the gateway and the client SDK transparently
retry UNAVAILABLE (a peer restarting, a connection blip). The executor's channels to the planner
and tools carry no retry policy, because the executor retries those calls itself with its own
policy and records every attempt; a second retry layer underneath would multiply attempts and
hide them. gRPC's transparent retries of calls that never reached the server remain on
everywhere. round_robin spreads calls over every address a DNS name resolves to, so replicas
share load.
"""

from __future__ import annotations

import json

import grpc

_ROUND_ROBIN = {"loadBalancingConfig": [{"round_robin": {}}]}
_RETRY_UNAVAILABLE = {
    "methodConfig": [
        {
            "name": [{}],
            "retryPolicy": {
                "maxAttempts": 3,
                "initialBackoff": "0.05s",
                "maxBackoff": "0.5s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        }
    ]
}


def channel_options(
    retry_unavailable: bool = True, max_receive_bytes: int = 16 * 1024 * 1024
) -> list[tuple[str, object]]:
    config = {**_ROUND_ROBIN, **(_RETRY_UNAVAILABLE if retry_unavailable else {})}
    return [
        ("grpc.service_config", json.dumps(config)),
        ("grpc.enable_retries", 1),
        ("grpc.max_receive_message_length", max_receive_bytes),
        ("grpc.keepalive_time_ms", 30_000),
        # Peers are services on the same network that restart quickly; the default 1s+ initial
        # reconnect backoff would fail calls fast for a second or more after every restart.
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.min_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 5_000),
        # Connections of this channel only. gRPC shares them between channels to one address by
        # default, and so a new channel to a peer that restarted on the address of one that went
        # away inherited the old connection's reconnect backoff: its calls failed with
        # "connection refused" for up to the backoff although the new peer was listening.
        ("grpc.use_local_subchannel_pool", 1),
    ]


def aio_channel(
    target: str,
    retry_unavailable: bool = True,
    max_receive_bytes: int = 16 * 1024 * 1024,
    interceptors: list[grpc.aio.ClientInterceptor] | None = None,
) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(
        target, options=channel_options(retry_unavailable, max_receive_bytes), interceptors=interceptors
    )


def sync_channel(target: str) -> grpc.Channel:
    return grpc.insecure_channel(target, options=channel_options())


def unreachable_cause(text: str) -> str:
    """What gRPC's UNAVAILABLE text says went wrong, in a few words ("connection refused")."""
    lowered = text.lower()
    for needle, cause in (
        ("connection refused", "connection refused"),
        ("dns resolution failed", "its host name does not resolve"),
        ("name or service not known", "its host name does not resolve"),
        ("domain name not found", "its host name does not resolve"),
        ("errors resolving", "its host name does not resolve"),
        ("timed out", "the connection timed out"),
        ("deadline", "the connection timed out"),
        ("no route to host", "no route to its host"),
        ("connection reset", "the connection was reset"),
    ):
        if needle in lowered:
            return cause
    return "nothing answered"
