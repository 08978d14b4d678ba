"""The gateway's keys: principals and roles, and whose address wrong keys are throttled by."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from agentrt.config import ApiKey, GatewaySettings
from agentrt.core.errors import ResourceExhausted, Unauthenticated
from agentrt.core.principals import LOCAL
from gateway.auth import Auth


def auth(**update: object) -> Auth:
    keys = {"alice": SecretStr("key-alice"), "ops": ApiKey(key=SecretStr("key-ops"), roles=["admin"])}
    return Auth(GatewaySettings(api_keys=keys, auth_failure_burst=2, auth_failure_rps=0.001, **update))  # type: ignore[arg-type]


def test_keys_map_to_principals_with_their_roles_and_no_keys_is_local() -> None:
    a = auth()
    alice, ops = a.check("key-alice"), a.check("key-ops")
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


def test_one_client_behind_a_trusted_proxy_cannot_lock_out_the_others() -> None:
    a = auth(trusted_proxies=["10.0.0.1"])
    for _ in range(2):
        with pytest.raises(Unauthenticated):
            a.check("guess", "10.0.0.1", "198.51.100.1")
    with pytest.raises(ResourceExhausted):
        a.check("key-alice", "10.0.0.1", "198.51.100.1")  # the guesser is throttled...
    assert a.check("key-alice", "10.0.0.1", "198.51.100.2").name == "alice"  # ...its neighbour is not
    # Without trusting the proxy, everybody behind it is one address: the lock-out the setting fixes.
    untrusting = auth()
    for _ in range(2):
        with pytest.raises(Unauthenticated):
            untrusting.check("guess", "10.0.0.1", "198.51.100.1")
    with pytest.raises(ResourceExhausted):
        untrusting.check("key-alice", "10.0.0.1", "198.51.100.2")


def test_roles_and_key_files_read_well_and_bad_ones_are_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    keys = tmp_path / "keys.json"
    keys.write_text('{"carol": {"key": "key-carol", "roles": ["approver"]}, "dan": "key-dan"}')
    settings = GatewaySettings(api_keys_file=keys, api_keys={"alice": SecretStr("key-alice")})
    assert {name: sorted(roles) for name, (_, roles) in settings.principals().items()} == {
        "alice": ["user"],
        "carol": ["approver", "user"],
        "dan": ["user"],
    }
    keys.write_text('{"eve": {"key": "k", "roles": ["root"]}}')
    with pytest.raises(ValueError, match="eve"):
        GatewaySettings(api_keys_file=keys)
    with pytest.raises(ValueError, match="reserved"):
        GatewaySettings(api_keys={"local": SecretStr("key-local")})


def test_key_names_are_ascii_and_keys_distinct() -> None:
    with pytest.raises(ValueError, match="ASCII"):
        GatewaySettings(api_keys={"zoë": SecretStr("key-zoe-1")})
    with pytest.raises(ValueError, match="same key"):
        GatewaySettings(api_keys={"a": SecretStr("key-shared"), "b": SecretStr("key-shared")})


def test_an_ipv6_client_is_throttled_by_its_64_not_address_by_address() -> None:
    a = auth()
    for n in range(2):
        with pytest.raises(Unauthenticated):
            a.check("guess", f"2001:db8:1:2::{n + 1}")
    with pytest.raises(ResourceExhausted):
        a.check("key-alice", "2001:db8:1:2::99")  # the same /64
    assert a.check("key-alice", "2001:db8:1:3::1").name == "alice"  # another /64
