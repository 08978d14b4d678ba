"""The gateway's keys: principals and roles, and how wrong keys are throttled (per client
address and per key prefix) without ever refusing a right one."""

from __future__ import annotations

import hmac
from contextlib import nullcontext

import pytest
from pydantic import SecretStr

from agentrt.config import ApiKey, GatewaySettings
from agentrt.core.errors import ResourceExhausted, Unauthenticated
from agentrt.core.principals import LOCAL
from gateway import auth as auth_module
from gateway.auth import KEY_PREFIX_CHARS, Auth
from tests.keys import key_for

ALICE, OPS = key_for("alice"), key_for("ops")


def auth(**update: object) -> Auth:
    keys = {"alice": SecretStr(ALICE), "ops": ApiKey(key=SecretStr(OPS), roles=["admin"])}
    return Auth(GatewaySettings(api_keys=keys, auth_failure_burst=2, auth_failure_rps=0.001, **update))  # type: ignore[arg-type]


def guess(n: int) -> str:
    """A wrong key whose prefix is its own: only the address's budget counts it."""
    return f"{n:0{KEY_PREFIX_CHARS}d}-guess"


def test_keys_map_to_principals_with_their_roles_and_no_keys_is_local() -> None:
    a = auth()
    alice, ops = a.check(ALICE), a.check(OPS)
    assert (alice.name, alice.roles, alice.is_admin) == ("alice", frozenset({"user"}), False)
    assert (ops.name, ops.is_admin, ops.is_approver) == ("ops", True, True)
    assert Auth(GatewaySettings()).check(None) == LOCAL
    assert LOCAL.is_admin and LOCAL.name == "local"


def test_forwarded_addresses_count_only_from_trusted_proxies() -> None:
    a = auth(trusted_proxies=["10.0.0.0/8", "192.0.2.1"])
    assert a.client_address("203.0.113.9", "198.51.100.1") == "203.0.113.9"  # not a proxy: ignored
    assert a.client_address("192.0.2.1", "198.51.100.1") == "198.51.100.1"
    # The nearest hop that is not a trusted proxy; what the client wrote to its left proves nothing.
    assert a.client_address("10.1.1.1", "1.1.1.1, 198.51.100.1, 10.2.2.2") == "198.51.100.1"
    assert a.client_address("10.1.1.1", "not-an-address") == "10.1.1.1"
    assert a.client_address("10.1.1.1", "10.3.3.3") == "10.1.1.1"
    assert auth().client_address("10.1.1.1", "198.51.100.1") == "10.1.1.1"  # no proxies configured


def test_a_right_key_is_served_after_any_number_of_wrong_keys_from_its_address() -> None:
    a = auth()
    for n in range(50):  # a guesser behind the same NAT as alice
        with pytest.raises((Unauthenticated, ResourceExhausted)):
            a.check(guess(n), "203.0.113.7")
    assert a.check(ALICE, "203.0.113.7").name == "alice"
    # Wrong keys starting as alice's does (a guesser who knows its first characters) neither.
    for n in range(50):
        with pytest.raises((Unauthenticated, ResourceExhausted)):
            a.check(ALICE[:KEY_PREFIX_CHARS] + f"wrong-{n}", f"198.51.100.{n}")
    assert a.check(ALICE, "198.51.100.1").name == "alice"
    # Its own bucket still applies.
    limited = Auth(GatewaySettings(api_keys={"alice": SecretStr(ALICE)}, rate_limit_burst=2))
    limited.check(ALICE), limited.check(ALICE)
    with pytest.raises(ResourceExhausted) as info:
        limited.check(ALICE)
    assert info.value.reason == "RATE_LIMITED"


def test_wrong_keys_from_one_address_are_throttled_and_told_when_to_come_back() -> None:
    a = auth()
    for n in range(2):
        with pytest.raises(Unauthenticated):
            a.check(guess(n), "203.0.113.7")
    for n in range(2, 10):  # each with a prefix of its own: the address's budget refuses them
        with pytest.raises(ResourceExhausted) as info:
            a.check(guess(n), "203.0.113.7")
        assert info.value.reason == "AUTH_THROTTLED"
        assert info.value.retry_after_s is not None and info.value.retry_after_s > 0
        assert "valid API key is required" in str(info.value)
    with pytest.raises(Unauthenticated):
        a.check(guess(10), "203.0.113.8")  # another address has its own budget
    with pytest.raises(Unauthenticated):
        a.check(None, "203.0.113.7")  # no key at all is not a guess: still told it is missing


def test_wrong_keys_sharing_a_prefix_are_throttled_across_addresses() -> None:
    a = auth()
    aiming = ALICE[:KEY_PREFIX_CHARS]  # a distributed guesser that knows how alice's key starts
    for n in range(2):
        with pytest.raises(Unauthenticated):
            a.check(f"{aiming}guess-{n}", f"198.51.100.{n}")
    for n in range(2, 6):  # fresh addresses, one shared prefix
        with pytest.raises(ResourceExhausted) as info:
            a.check(f"{aiming}guess-{n}", f"198.51.100.{n}")
        assert info.value.reason == "AUTH_THROTTLED"
    with pytest.raises(Unauthenticated):
        a.check(guess(0), "198.51.100.9")  # another prefix from a fresh address: its own budgets
    assert a.check(ALICE, "198.51.100.2").name == "alice"  # and the key itself is served


def test_one_client_behind_a_trusted_proxy_cannot_exhaust_the_others_budget() -> None:
    a = auth(trusted_proxies=["10.0.0.1"])
    for n in range(2):
        with pytest.raises(Unauthenticated):
            a.check(guess(n), "10.0.0.1", "198.51.100.1")
    with pytest.raises(ResourceExhausted):
        a.check(guess(2), "10.0.0.1", "198.51.100.1")  # the guesser is throttled...
    with pytest.raises(Unauthenticated):
        a.check(guess(3), "10.0.0.1", "198.51.100.2")  # ...its neighbour's mistake is a plain 401
    # Without trusting the proxy, everybody behind it is one address: one budget of wrong keys
    # (but never a refused right key).
    untrusting = auth()
    for n in range(2):
        with pytest.raises(Unauthenticated):
            untrusting.check(guess(n), "10.0.0.1", "198.51.100.1")
    with pytest.raises(ResourceExhausted):
        untrusting.check(guess(3), "10.0.0.1", "198.51.100.2")
    assert untrusting.check(ALICE, "10.0.0.1", "198.51.100.2").name == "alice"


def test_an_ipv6_client_is_throttled_by_its_64_not_address_by_address() -> None:
    a = auth()
    for n in range(2):
        with pytest.raises(Unauthenticated):
            a.check(guess(n), f"2001:db8:1:2::{n + 1}")
    with pytest.raises(ResourceExhausted):
        a.check(guess(2), "2001:db8:1:2::99")  # the same /64
    with pytest.raises(Unauthenticated):
        a.check(guess(3), "2001:db8:1:3::1")  # another /64
    assert a.check(ALICE, "2001:db8:1:2::99").name == "alice"


def test_tracked_addresses_and_prefixes_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    a = auth()
    # A throttled address adds no more prefixes: it cannot fill the table faster than its budget.
    for n in range(50):
        with pytest.raises((Unauthenticated, ResourceExhausted)):
            a.check(guess(n), "203.0.113.7")
    assert (len(a._failures), len(a._prefix_failures)) == (1, 2)
    # Many guessers: each table keeps the most recent, at most its limit.
    monkeypatch.setattr(auth_module, "MAX_TRACKED_ADDRESSES", 5)
    monkeypatch.setattr(auth_module, "MAX_TRACKED_PREFIXES", 7)
    for n in range(100, 140):
        with pytest.raises(Unauthenticated):
            a.check(guess(n), f"198.51.100.{n}")
    assert (len(a._failures), len(a._prefix_failures)) == (5, 7)
    assert "198.51.100.139" in a._failures and "203.0.113.7" not in a._failures
    # No part of a key is kept: prefixes are remembered by a keyed digest.
    assert all(isinstance(p, bytes) and len(p) == 32 for p in a._prefix_failures)


def test_every_key_is_compared_whatever_the_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    """The time a check takes must not say which key matched, or that the caller is throttled."""
    compared: list[bytes] = []
    real = hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        compared.append(b)
        return real(a, b)

    monkeypatch.setattr(auth_module.hmac, "compare_digest", counting)
    a = auth()
    for key in (ALICE, OPS, "wrong", "wrong", "wrong"):  # the last one is throttled
        compared.clear()
        with pytest.raises((Unauthenticated, ResourceExhausted)) if key == "wrong" else nullcontext():
            a.check(key, "203.0.113.7")
        assert sorted(compared) == sorted([ALICE.encode(), OPS.encode()]), key


def test_roles_and_key_files_read_well_and_bad_ones_are_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    keys = tmp_path / "keys.json"
    keys.write_text(
        f'{{"carol": {{"key": "{key_for("carol")}", "roles": ["approver"]}}, "dan": "{key_for("dan")}"}}'
    )
    settings = GatewaySettings(api_keys_file=keys, api_keys={"alice": SecretStr(ALICE)})
    assert {name: sorted(roles) for name, (_, roles) in settings.principals().items()} == {
        "alice": ["user"],
        "carol": ["approver", "user"],
        "dan": ["user"],
    }
    keys.write_text(f'{{"eve": {{"key": "{key_for("eve")}", "roles": ["root"]}}}}')
    with pytest.raises(ValueError, match="eve"):
        GatewaySettings(api_keys_file=keys)
    with pytest.raises(ValueError, match="reserved"):
        GatewaySettings(api_keys={"local": SecretStr(key_for("local"))})


def test_key_names_are_ascii_and_keys_distinct() -> None:
    with pytest.raises(ValueError, match="ASCII"):
        GatewaySettings(api_keys={"zoë": SecretStr(key_for("zoe"))})
    with pytest.raises(ValueError, match="same key"):
        GatewaySettings(api_keys={"a": SecretStr(ALICE), "b": SecretStr(ALICE)})
