"""API keys and per-key rate limits at the gateway, shared by the REST bridge and gRPC.

Off when no keys are configured (the embedded default): every caller is the principal `local`.
Otherwise a key's name is the caller's principal, with the key's roles. Keys are compared in
constant time, and each key has a token bucket: `rate_limit_rps` sustained, `rate_limit_burst` at
once. A refused call is told how long to wait (HTTP 429 Retry-After, gRPC RESOURCE_EXHAUSTED with
RetryInfo). Wrong keys are throttled per client address: the peer's, or the address a trusted
proxy (`trusted_proxies`) forwarded, so one client behind a proxy cannot lock out the others.
"""

from __future__ import annotations

import hmac
import ipaddress
import math
import time
from collections import OrderedDict
from dataclasses import dataclass

from agentrt.config import GatewaySettings
from agentrt.core.errors import ResourceExhausted, Unauthenticated
from agentrt.core.principals import LOCAL, Principal
from agentrt.core.text import register_secrets

# Addresses whose failed attempts are remembered; the least recently failing are forgotten first.
MAX_TRACKED_ADDRESSES = 10_000
# Of an X-Forwarded-For header, only the last hops are read: the client may write the rest.
MAX_FORWARDED_HOPS = 16
MAX_FORWARDED_CHARS = 2048


@dataclass
class _Bucket:
    tokens: float
    updated: float


class Auth:
    def __init__(self, settings: GatewaySettings) -> None:
        self._keys = [
            (Principal(name, roles), secret.encode())
            for name, (secret, roles) in settings.principals().items()
        ]
        register_secrets(k.decode() for _, k in self._keys)  # never logged, whoever quotes one
        self._proxies = [ipaddress.ip_network(p, strict=False) for p in settings.trusted_proxies]
        self._rate = settings.rate_limit_rps
        self._burst = float(settings.rate_limit_burst)
        self._buckets: dict[str, _Bucket] = {}
        # Wrong keys, per client address: guessing keys is throttled like any other call.
        self._failure_rate = settings.auth_failure_rps
        self._failure_burst = float(settings.auth_failure_burst)
        self._failures: OrderedDict[str, _Bucket] = OrderedDict()

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def check(
        self, presented: str | None, address: str = "unknown", forwarded_for: str | None = None
    ) -> Principal:
        """Authenticate and rate-limit one call from peer `address` (with the X-Forwarded-For it
        sent, if any); returns the key's principal (`local` when auth is off). A client address
        that sent auth_failure_burst wrong keys is refused (RESOURCE_EXHAUSTED) until its bucket
        refills at auth_failure_rps, whatever key it sends."""
        if not self._keys:
            return LOCAL
        address = _bucket_of(self.client_address(address, forwarded_for))
        failures = self._failures.get(address)
        if failures is not None:
            self._refill(failures, self._failure_rate, self._failure_burst)
            if failures.tokens < 1:
                wait = (1 - failures.tokens) / self._failure_rate
                raise ResourceExhausted(
                    f"too many invalid API keys from this address; retry in {wait:.2f}s",
                    reason="AUTH_THROTTLED",
                    retry_after_s=wait,
                )
        try:
            principal = self._authenticate(presented)
        except Unauthenticated:
            if presented:
                self._failed(address)
            raise
        self._take(principal.name)
        return principal

    def client_address(self, peer: str, forwarded_for: str | None) -> str:
        """The client's address: the peer's, unless the peer is a trusted proxy that forwarded
        one; then the nearest forwarded address that is not itself a trusted proxy (the hops to
        its left were written by the client and prove nothing)."""
        if not self._proxies or not forwarded_for or not self._trusted(peer):
            return peer
        hops = [h.strip() for h in forwarded_for[-MAX_FORWARDED_CHARS:].split(",")][-MAX_FORWARDED_HOPS:]
        for hop in reversed(hops):
            if not hop:
                continue
            if not self._trusted(hop):
                return hop if _is_ip(hop) else peer
        return peer

    def _trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self._proxies)

    def _failed(self, address: str) -> None:
        bucket = self._failures.pop(address, None) or _Bucket(self._failure_burst, time.monotonic())
        self._refill(bucket, self._failure_rate, self._failure_burst)
        bucket.tokens -= 1
        self._failures[address] = bucket  # most recent last: the oldest are forgotten first
        while len(self._failures) > MAX_TRACKED_ADDRESSES:
            self._failures.popitem(last=False)

    @staticmethod
    def _refill(bucket: _Bucket, rate: float, burst: float) -> None:
        now = time.monotonic()
        bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now

    def _authenticate(self, presented: str | None) -> Principal:
        token = (presented or "").encode()
        match = None
        for principal, key in self._keys:
            # Compare against every key, always: the time taken must not depend on which matched.
            if hmac.compare_digest(token, key):
                match = principal
        if match is None:
            raise Unauthenticated(
                "a valid API key is required: send 'Authorization: Bearer <key>'"
                if presented
                else "missing API key: send 'Authorization: Bearer <key>'",
                reason="INVALID_API_KEY" if presented else "MISSING_API_KEY",
            )
        return match

    def _take(self, name: str) -> None:
        bucket = self._buckets.setdefault(name, _Bucket(self._burst, time.monotonic()))
        self._refill(bucket, self._rate, self._burst)
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return
        wait = (1 - bucket.tokens) / self._rate
        raise ResourceExhausted(
            f"rate limit exceeded for API key '{name}' ({self._rate:g} requests/s, burst {self._burst:g}); "
            f"retry in {wait:.2f}s",
            reason="RATE_LIMITED",
            retry_after_s=wait,
        )


def peer_address(peer: str) -> str:
    """The client address of a gRPC peer ("ipv4:127.0.0.1:5555" -> "127.0.0.1", "ipv6:[::1]:5"
    -> "::1"), as the REST bridge sees it: one client, one address, over either protocol and
    however many connections it opens."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return peer
    address, _, port = rest.rpartition(":")
    return address.strip("[]") if address and port.isdigit() else rest


def _bucket_of(address: str) -> str:
    """Whose wrong keys count together: one IPv4 address, or one IPv6 /64 (a single client
    commonly holds a whole /64, and would otherwise get a fresh budget per address)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def retry_after_header(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
