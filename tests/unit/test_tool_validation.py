import pytest

from agentrt.core.errors import InvalidArgument, PermissionDenied
from tools_svc.validation import EndpointPolicy, check_name, check_schema, split_endpoint, version_key


def test_versions_order_semantically() -> None:
    ordered = ["0.9.0", "1.0.0-alpha", "1.0.0-beta", "1.0.0", "1.0.1", "1.2.0", "1.10.0", "2.0.0"]
    assert sorted(ordered, key=version_key) == ordered
    for bad in ("1", "1.0", "v1.0.0", "1.0.0.0", "01.0.0"):
        with pytest.raises(InvalidArgument, match="not a semantic version"):
            version_key(bad)


@pytest.mark.parametrize("name", ["Weather", "1tool", "tool-name", "", "a" * 65, "tool name"])
def test_bad_names(name: str) -> None:
    with pytest.raises(InvalidArgument, match="is invalid"):
        check_name(name)


def test_schemas_must_be_valid_objects() -> None:
    check_schema({"type": "object", "properties": {"a": {"type": "string"}}}, "s", require_object=True)
    with pytest.raises(InvalidArgument, match='not an acceptable JSON Schema: "strin"') as info:
        check_schema(
            {"type": "object", "properties": {"a": {"type": "strin"}}},
            "spec.input_schema",
            require_object=True,
        )
    assert info.value.reason == "INVALID_SCHEMA"
    with pytest.raises(InvalidArgument, match="must describe an object"):
        check_schema({"type": "string"}, "spec.input_schema", require_object=True)


def test_endpoints_parse() -> None:
    assert split_endpoint("127.0.0.1:50060") == ("127.0.0.1", 50060)
    assert split_endpoint("[::1]:7000") == ("::1", 7000)
    assert split_endpoint("Tools-A:80") == ("tools-a", 80)
    for bad in ("127.0.0.1", "host:0", "host:70000", ":80", "a:b:c"):
        with pytest.raises(InvalidArgument, match="must be host:port"):
            split_endpoint(bad)


async def test_endpoint_allow_list() -> None:
    policy = EndpointPolicy(["127.0.0.0/8", "10.1.0.0/16", "tools-a"])
    await policy.check("127.0.0.1:1")
    await policy.check("10.1.2.3:1")
    await policy.check("tools-a:50060")
    await policy.check("localhost:1")  # resolves into 127.0.0.0/8
    for denied in ("10.2.0.1:1", "169.254.169.254:80", "[::1]:1"):
        with pytest.raises(PermissionDenied, match="is outside the allowed provider networks"):
            await policy.check(denied)
    with pytest.raises(PermissionDenied, match="does not resolve"):
        await policy.check("no-such-host.invalid:1")
