"""API keys and per-key rate limits at the gateway, shared by REST, gRPC, /mcp and A2A.

Off when no keys are configured (the embedded default): every caller is the principal `local`.
Otherwise a key's name is the caller's principal, with the key's roles. Keys are compared in
constant time, against every key, and each key has a token bucket: `rate_limit_rps` sustained,
`rate_limit_burst` at once. A refused call is told how long to wait (HTTP 429 Retry-After, gRPC
RESOURCE_EXHAUSTED with RetryInfo).

Wrong keys are throttled, never right ones. The presented key is checked first, whatever came
before it: a right key is served (within its own bucket) however many wrong keys its address
sent, so a guesser behind a NAT or an office's proxy cannot lock out its neighbours. Wrong keys
are counted twice: per client address (the peer's, or the one a trusted proxy forwarded;
IPv6 by /64) and per key prefix (its first KEY_PREFIX_CHARS characters, so guessers spread over
many addresses aiming at one key whose start they know share one budget). Past
`auth_failure_burst` of either, refilled at `auth_failure_rps`, a wrong key is answered 429 /
RESOURCE_EXHAUSTED `AUTH_THROTTLED` with Retry-After instead of 401: still a plain "this key is
not valid", and a signal for a client to back off. What makes guessing useless is not this
throttle (a right guess is a right key, and is served) but the keys' strength: keys estimated
below 128 bits are refused at start (agentrt/config/keystrength.py). The throttle keeps wrong
keys cheap and visible. Both tables of buckets are bounded, the least recently failing
forgotten first.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from agentrt.config import GatewaySettings
from agentrt.core.errors import ResourceExhausted, Unauthenticated
from agentrt.core.principals import LOCAL, Principal
from agentrt.core.text import register_secrets

# Addresses, and key prefixes, whose wrong keys are remembered (each table holds at most this
# many); the least recently failing are forgotten first.
MAX_TRACKED_ADDRESSES = 10_000
MAX_TRACKED_PREFIXES = 10_000
# How much of a wrong key names its prefix bucket. Fewer characters would put strangers' typos in
# one bucket; more would let a guesser who knows a key's first characters vary the next ones and
# get a fresh budget each time. Six characters of a random key are 36 bits: strangers rarely share.
KEY_PREFIX_CHARS = 6
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
        # Wrong keys, per client address and per key prefix (see the module's docstring).
        self._failure_rate = settings.auth_failure_rps
        self._failure_burst = float(settings.auth_failure_burst)
        self._failures: OrderedDict[str, _Bucket] = OrderedDict()
        self._prefix_failures: OrderedDict[bytes, _Bucket] = OrderedDict()
        # Prefixes are remembered by a keyed digest: no part of anyone's key is kept in memory.
        self._prefix_salt = secrets.token_bytes(16)

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def check(
        self, presented: str | None, address: str = "unknown", forwarded_for: str | None = None
    ) -> Principal:
        """Authenticate and rate-limit one call from peer `address` (with the X-Forwarded-For it
        sent, if any); returns the key's principal (`local` when auth is off). A right key is
        refused only by its own bucket (RATE_LIMITED); a wrong one is UNAUTHENTICATED, or
        RESOURCE_EXHAUSTED (AUTH_THROTTLED) once its address or its prefix has sent
        auth_failure_burst wrong keys, until their buckets refill at auth_failure_rps."""
        if not self._keys:
            return LOCAL
        try:
            # First, whatever the buckets say: the wrong keys of others never refuse a right one.
            principal = self._authenticate(presented)
        except Unauthenticated:
            if presented:
                self._wrong_key(_bucket_of(self.client_address(address, forwarded_for)), presented)
            raise
        self._take(principal.name)
        return principal

    def _wrong_key(self, address: str, presented: str) -> None:
        """Count one wrong key against its address and its prefix, or, when either has no budget
        left, raise AUTH_THROTTLED (counting nothing: a throttled guesser cannot fill the tables
        faster than auth_failure_rps)."""
        prefix = hmac.digest(self._prefix_salt, presented[:KEY_PREFIX_CHARS].encode(), hashlib.sha256)
        waits = [
            self._wait(bucket)
            for bucket in (self._failures.get(address), self._prefix_failures.get(prefix))
            if bucket is not None
        ]
        if (wait := max(waits, default=0.0)) > 0:
            raise ResourceExhausted(
                "a valid API key is required, and too many invalid ones came from this address "
                f"or began like this one; retry in {wait:.2f}s",
                reason="AUTH_THROTTLED",
                retry_after_s=wait,
            ) from None  # instead of the 401, not caused by it
        self._spend(self._failures, address, MAX_TRACKED_ADDRESSES)
        self._spend(self._prefix_failures, prefix, MAX_TRACKED_PREFIXES)

    def _wait(self, bucket: _Bucket) -> float:
        """Seconds until `bucket` of wrong keys has a token again (0: it has one)."""
        self._refill_failures(bucket)
        return 0.0 if bucket.tokens >= 1 else (1 - bucket.tokens) / self._failure_rate

    def _refill_failures(self, bucket: _Bucket) -> None:
        self._refill(bucket, self._failure_rate, self._failure_burst)

    def _spend(self, table: OrderedDict[Any, _Bucket], key: Hashable, limit: int) -> None:
        """Take a token from `key`'s bucket of wrong keys (a full one if it has none), keeping the
        most recent last and at most `limit` buckets: the least recently failing go first."""
        bucket = table.pop(key, None) or _Bucket(self._failure_burst, time.monotonic())
        self._refill_failures(bucket)
        bucket.tokens -= 1
        table[key] = bucket
        while len(table) > limit:
            table.popitem(last=False)

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
