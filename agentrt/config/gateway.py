"""The gateway's settings: its public ports, deadlines, and who may call it how often."""

from __future__ import annotations

import ipaddress

from pydantic import Field, field_validator

from agentrt.config.common import CommonSettings


class GatewaySettings(CommonSettings):
    """What the gateway is configured with (and the common settings); AGENTRT_<FIELD_NAME>."""

    # The gateway is the one public service: it binds `host` (the others bind internal_host), so
    # setting it to 0.0.0.0 publishes the gateway only. http_port serves the REST/SSE bridge, the
    # live run page and the OpenAPI document.
    host: str = "127.0.0.1"
    gateway_port: int = Field(50051, ge=0, le=65535)
    http_port: int = Field(8080, ge=0, le=65535)
    # The address callers reach the gateway's HTTP port at (https://agents.example.com), for the
    # A2A agent card's interface URL; empty: the address each card request came to (right
    # unless a proxy in front rewrites it).
    public_url: str = Field("", pattern=r"^(?:https?://[^\s/?#]+(?:/[^\s?#]*)?)?$")
    # The host:port callers reach the gateway's gRPC port at, for the card's gRPC interface;
    # empty: the host of the address above (or of the card request) at the gateway's gRPC port.
    public_grpc_address: str = Field("", pattern=r"^(?:[^\s/?#@]+:[0-9]{1,5})?$", max_length=300)
    # Prometheus /metrics; 0 turns it off.
    gateway_metrics_port: int = Field(9091, ge=0, le=65535)

    # The deadline of a call whose caller set none (every REST call; gRPC calls without a
    # deadline). WatchRun streams have none.
    request_timeout_s: float = Field(30.0, gt=0)
    # Largest request the gateway accepts (REST body or gRPC message).
    max_request_bytes: int = Field(64 * 1024, ge=1024)
    # How deeply a JSON body may nest (every HTTP edge: REST, A2A, /mcp), checked before any
    # parser or SDK reads it: protobuf stops at 100 levels of messages (a JSON level is two), and
    # a library that logs its failure with the body in hand must never be handed a worse one.
    max_json_depth: int = Field(32, ge=4, le=48)
    # The request line and headers of one HTTP request, in bytes: past it, 431.
    max_header_bytes: int = Field(32 * 1024, ge=4096, le=1024 * 1024)

    # Streams held open (WatchRun over gRPC and SSE, /mcp's GET streams): at most this many per
    # principal and in all; the next is refused (429 / RESOURCE_EXHAUSTED) until one ends.
    max_streams_per_principal: int = Field(64, ge=1)
    max_streams: int = Field(2048, ge=1)
    # A GET /mcp stream that has sent nothing for this long is closed (the client reconnects if
    # it still wants one): in stateless MCP nothing is ever pushed on one.
    mcp_stream_idle_s: float = Field(60.0, gt=0)

    # Proxies in front of the gateway (addresses or CIDR networks) whose X-Forwarded-For is
    # believed: the client address that wrong keys are throttled by is then the forwarded one.
    trusted_proxies: list[str] = Field(default_factory=list)
    # Each API key's token bucket (REST and gRPC together).
    rate_limit_rps: float = Field(20.0, gt=0)
    rate_limit_burst: int = Field(40, ge=1)
    # Wrong API keys, per client address and per key prefix (its first characters, from any
    # address): after auth_failure_burst of either, further wrong keys are answered 429 /
    # RESOURCE_EXHAUSTED AUTH_THROTTLED instead of 401 until the bucket refills at
    # auth_failure_rps. A right key is never refused for them (gateway/auth.py).
    auth_failure_rps: float = Field(1.0, gt=0)
    auth_failure_burst: int = Field(10, ge=1)

    @field_validator("trusted_proxies", mode="after")
    @classmethod
    def _proxies_are_networks(cls, proxies: list[str]) -> list[str]:
        for proxy in proxies:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(f"{proxy!r} is not an IP address or network") from None
        return proxies
