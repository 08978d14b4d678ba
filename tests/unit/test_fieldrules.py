"""The protos' field rules (agentrt/core/fieldrules.py): every rule compiles with the settings it
names, and the JSON Schema the OpenAPI document states for a rule accepts exactly the values the
check accepts. The schema side is judged by jsonschema-rs (ECMA-262 regular expressions, as
JSON Schema reads them, and as schemathesis validates with)."""

from __future__ import annotations

import functools
import itertools
import json
import random
import re
from typing import Any

import jsonschema_rs
import pytest
from google.protobuf import (
    descriptor,
    descriptor_pb2,
    descriptor_pool,
    duration_pb2,
    json_format,
    message_factory,
)

from agentrt.config import AgentBudgets, CommonSettings, ExecutorSettings
from agentrt.core import fieldrules
from agentrt.core.errors import InvalidArgument
from agentrt.core.fieldrules import Rules
from agentrt.v1 import agent_pb2, field_rules_pb2, run_pb2

R = run_pb2
REQUESTS = [m.input_type for m in R.DESCRIPTOR.services_by_name["RunService"].methods]


def accepts(schema: dict[str, Any], value: object) -> bool:
    return _validator(json.dumps(schema)).is_valid(value)


@functools.cache
def _validator(schema: str) -> jsonschema_rs.Validator:
    return jsonschema_rs.Draft202012Validator(json.loads(schema))


def field_schema(rules: Rules, message: type, name: str, base: dict[str, Any]) -> dict[str, Any]:
    keywords, _ = rules.schema(message.DESCRIPTOR.fields_by_name[name])
    return {**base, **keywords}


def test_every_request_rule_compiles_and_every_setting_it_names_exists() -> None:
    rules = Rules(CommonSettings())
    for request in REQUESTS:
        message = message_factory.GetMessageClass(request)()
        rules.violations(message)  # compiles the message's rules, nested ones included
        for f in request.fields:
            rules.schema(f)
    # A setting that is not there is found when its message is first compiled, not ignored.
    with pytest.raises(ValueError, match="setting"):
        Rules(None).violations(R.CreateRunRequest())


def test_configured_limits_are_read_from_the_settings() -> None:
    settings = ExecutorSettings(  # the executor checks requests; its budgets are within the limits
        max_prompt_chars=12,
        max_steps_limit=3,
        max_run_timeout_s=60,
        agent_budgets=AgentBudgets(max_turns=2, max_tool_calls=5, max_tokens=6, max_cost_usd=0.25),
        agent_budget_limits=AgentBudgets(max_turns=4, max_tool_calls=5, max_tokens=6, max_cost_usd=0.25),
    )
    rules = Rules(settings)
    request = R.CreateRunRequest(
        prompt="x" * 13,
        max_steps=4,
        timeout=duration_pb2.Duration(seconds=61),
        budgets=agent_pb2.Budgets(max_turns=5, max_cost_usd=0.5),
    )
    assert rules.violations(request) == [
        ("prompt", "must be at most 12 characters (AGENTRT_MAX_PROMPT_CHARS)"),
        ("max_steps", "must be at most 3 (AGENTRT_MAX_STEPS_LIMIT)"),
        ("timeout", "must be at most 60s (AGENTRT_MAX_RUN_TIMEOUT_S)"),
        ("budgets.max_turns", "must be at most 4 (AGENTRT_AGENT_BUDGET_LIMITS)"),
        ("budgets.max_cost_usd", "must be at most 0.25 (AGENTRT_AGENT_BUDGET_LIMITS)"),
    ]
    prompt = R.CreateRunRequest.DESCRIPTOR.fields_by_name["prompt"]
    assert rules.schema(prompt)[0]["maxLength"] == 12
    assert rules.schema(agent_pb2.Budgets.DESCRIPTOR.fields_by_name["max_turns"])[0]["maximum"] == 4
    with pytest.raises(InvalidArgument) as info:
        rules.check(request)
    assert str(info.value).startswith("invalid CreateRunRequest: prompt must be at most 12 characters")


def test_a_valid_request_has_no_violations_and_nan_is_refused() -> None:
    rules = Rules(CommonSettings())
    ok = R.CreateRunRequest(
        prompt=" add 1 and 1 ",
        max_steps=100,
        idempotency_key="k" * 200,
        retry_policy=R.RetryPolicy(max_attempts=100, base_delay=duration_pb2.Duration()),
        timeout=duration_pb2.Duration(nanos=1),
        mode=agent_pb2.RUN_MODE_AGENT,
        budgets=agent_pb2.Budgets(max_cost_usd=5.0),
    )
    assert rules.violations(ok) == []
    bad = R.CreateRunRequest(prompt="x", mode=9, budgets=agent_pb2.Budgets(max_cost_usd=float("nan")))
    assert rules.violations(bad) == [
        ("mode", "must be a RunMode value, not 9"),
        ("budgets.max_cost_usd", "must be >= 0"),
    ]


STRINGS = [
    "",
    " ",
    "\t\n",
    "\u3000",
    "\x1c",
    "x",
    " x ",
    "a\nb",
    "abc\n",
    "a\x00b",
    "\x00",
    "é日本",
    "\U0001f600",
    "\u202e",
    "\U000e0001",
    "\ue000",
    "\u0378",
    "a b",
    "x" * 64,
    "x" * 65,
    "0123456789abcdef0123456789abcdef",
    "1790000000000000.0123456789abcdef0123456789abcdef",
    "1790000000000000.0123456789abcdef0123456789abcdeF",
    "17900000000000001.0123456789abcdef0123456789abcdef",
]


@pytest.mark.parametrize(
    ("message", "name"),
    [
        (R.CreateRunRequest, "prompt"),
        (R.CreateRunRequest, "idempotency_key"),
        (R.GetRunRequest, "run_id"),
        (R.ApproveStepRequest, "step_id"),
        (R.ListRunsRequest, "owner"),
        (R.ListRunsRequest, "page_token"),
        (R.RejectStepRequest, "reason"),
    ],
)
def test_string_schemas_accept_exactly_what_the_check_accepts(message: type, name: str) -> None:
    rules = Rules(CommonSettings(max_prompt_chars=64))
    schema = field_schema(rules, message, name, {"type": "string"})
    for value in STRINGS:
        allowed = rules.problem(message.DESCRIPTOR, name, value) is None
        assert accepts(schema, value) == allowed, (name, value)


def test_the_character_classes_are_pythons_isprintable_and_isspace() -> None:
    # Python's re reads these classes as ECMA-262 does; so does jsonschema-rs, checked on every
    # code point of each range's ends and neighbours (every code point one by one there is slow).
    every = "".join(map(chr, itertools.chain(range(0xD800), range(0xE000, 0x110000))))
    printable = re.findall(f"[^{fieldrules.not_printable_class()}]", every)
    assert "".join(printable) == "".join(c for c in every if c.isprintable())
    space = re.findall(f"[{fieldrules.whitespace_class()}]", every)
    assert "".join(space) == "".join(c for c in every if c.isspace())
    schema = {"type": "string", "pattern": f"^[^{fieldrules.not_printable_class()}]*$"}
    edges = [c for c in range(1, 0x10FFFF) if chr(c).isprintable() != chr(c - 1).isprintable()]
    for code in {e + d for e in edges for d in (-1, 0)} - set(range(0xD800, 0xE000)):
        assert accepts(schema, chr(code)) == chr(code).isprintable(), hex(code)


def _duration_strings(rng: random.Random) -> set[str]:
    wholes = ["0", "00", "-0", "-00", "1", "7", "59", "60", "61", "0060", "86400", "100", "-1"]
    fractions = ["", ".0", ".000000000", ".5", ".000000001", ".00000001", ".999999999", ".0000000001"]
    found = {w + f + "s" for w in wholes for f in fractions}
    for _ in range(3000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 10)))
        found.add(f"{rng.choice(wholes)}.{digits}s")
    return found | {"1.5", "1.s", "+1s", "1e3s", " 1s", "1_0s"}


@pytest.mark.parametrize(
    ("message", "name"),
    [
        (R.CreateRunRequest, "timeout"),
        (R.RetryPolicy, "base_delay"),
        (R.CreateRunRequest, "approval_timeout"),
    ],
)
@pytest.mark.parametrize("max_run_timeout_s", [60.0, 1.25, 0.5])
def test_duration_patterns_accept_exactly_the_durations_the_check_accepts(
    message: type, name: str, max_run_timeout_s: float
) -> None:
    """Each string as the REST adapter reads it: json_format parses it (or refuses it), the
    generic Duration pattern of the document holds, then the rule's check."""
    rules = Rules(CommonSettings(max_run_timeout_s=max_run_timeout_s))
    schema = field_schema(rules, message, name, {"type": "string"})
    generic = re.compile(r"-?[0-9]+(\.[0-9]{1,9})?s")
    for text in sorted(_duration_strings(random.Random(5))):
        duration = duration_pb2.Duration()
        try:
            json_format.Parse(f'"{text}"', duration)
            parsed = bool(generic.fullmatch(text))
        except json_format.ParseError:
            parsed = False
        allowed = parsed and rules.problem(message.DESCRIPTOR, name, duration) is None
        assert accepts(schema, text) == allowed, (text, max_run_timeout_s)


def test_int64_schemas_state_the_rule_for_numbers_and_decimal_strings() -> None:
    rules = Rules(CommonSettings())
    f = agent_pb2.Budgets.DESCRIPTOR.fields_by_name["max_tokens"]
    schema = {"type": ["string", "integer"], **rules.schema(f)[0]}
    limit = CommonSettings().agent_budget_limits.max_tokens
    for value in (0, 1, limit, limit + 1, -1, 2**63 - 1):
        allowed = rules.problem(agent_pb2.Budgets.DESCRIPTOR, "max_tokens", value) is None
        assert accepts(schema, value) == allowed, value
        assert accepts(schema, str(value)) == allowed, value
    assert accepts(schema, "-0") and accepts(schema, "000007")
    assert not accepts(schema, "+7") and not accepts(schema, "7.0") and not accepts(schema, "1_000")


@pytest.mark.parametrize(
    ("low", "high"), [(0, 0), (0, 9), (1, 99), (7, 1234), (95, 105), (0, 100000), (998, 1003)]
)
def test_decimal_ranges_match_exactly_their_numbers(low: int, high: int) -> None:
    pattern = re.compile(fieldrules.decimal_range(low, high))
    for value in range(0, max(high * 2, 20)):
        assert bool(pattern.fullmatch(str(value))) == (low <= value <= high), value
    assert not pattern.fullmatch(f"0{low}")  # no leading zeros: callers add their own


def test_fixed_width_ranges_match_exactly_their_digit_strings() -> None:
    rng = random.Random(3)
    for width in (1, 2, 3, 4):
        for _ in range(40):
            a = rng.randrange(10**width)
            b = rng.randrange(a, 10**width)
            pattern = re.compile(fieldrules.fixed_width_range(f"{a:0{width}d}", f"{b:0{width}d}"))
            for value in range(10**width):
                assert bool(pattern.fullmatch(f"{value:0{width}d}")) == (a <= value <= b)


def test_digits_at_most_is_a_width_bounded_decimal_reading() -> None:
    pattern = re.compile(fieldrules.digits_at_most(2**63 - 1))
    for text in (
        "0",
        "007",
        "9" * 18,
        str(2**63 - 1),
        "0" * 18 + "1",
        str(2**63),
        "9" * 19,
        "0" * 20,
        "",
        "-1",
    ):
        expected = bool(re.fullmatch(r"[0-9]{1,19}", text)) and int(text) <= 2**63 - 1
        assert bool(pattern.match(text)) == expected, text


def _message_with(rules: field_rules_pb2.FieldRules, kind: int, type_name: str = "") -> descriptor.Descriptor:
    """A message Probe with one field `value` of `kind` carrying `rules`."""
    pool = descriptor_pool.DescriptorPool()
    for file in (duration_pb2.DESCRIPTOR, descriptor_pb2.DESCRIPTOR, field_rules_pb2.DESCRIPTOR):
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        pool.Add(proto)
    probe = descriptor_pb2.FileDescriptorProto(
        name="probe.proto",
        package="probe",
        syntax="proto3",
        dependency=["agentrt/v1/field_rules.proto", "google/protobuf/duration.proto"],
    )
    field = probe.message_type.add(name="Probe").field.add(
        name="value", number=1, type=kind, label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
    )
    if type_name:
        field.type_name = type_name
    field.options.Extensions[field_rules_pb2.rules].CopyFrom(rules)
    pool.Add(probe)
    return pool.FindMessageTypeByName("probe.Probe")


T = descriptor_pb2.FieldDescriptorProto


@pytest.mark.parametrize(
    ("rules", "kind", "type_name", "error"),
    [
        (field_rules_pb2.FieldRules(max_len=3), T.TYPE_INT32, "", "string rules"),
        (field_rules_pb2.FieldRules(gte=0), T.TYPE_STRING, "", "number rules"),
        (field_rules_pb2.FieldRules(defined_only=True), T.TYPE_INT32, "", "defined_only"),
        (field_rules_pb2.FieldRules(pattern="[a-z]+"), T.TYPE_STRING, "", "anchored"),
        (field_rules_pb2.FieldRules(gte=1, lte=5), T.TYPE_MESSAGE, ".google.protobuf.Duration", "gte: 0"),
        (field_rules_pb2.FieldRules(gt=0), T.TYPE_MESSAGE, ".google.protobuf.Duration", "upper bound"),
        (field_rules_pb2.FieldRules(max_setting="no_such_setting"), T.TYPE_STRING, "", "unknown setting"),
    ],
)
def test_a_rule_that_cannot_apply_fails_when_compiled(
    rules: field_rules_pb2.FieldRules, kind: int, type_name: str, error: str
) -> None:
    probe = message_factory.GetMessageClass(_message_with(rules, kind, type_name))()
    checker = Rules(CommonSettings())
    for _ in range(2):  # every time: a failed compilation is not kept as "no rules"
        with pytest.raises(ValueError, match=error):
            checker.violations(probe)


def test_rules_are_compiled_once_per_message_type() -> None:
    rules = Rules(CommonSettings())
    request = R.CreateRunRequest(prompt="x", retry_policy=R.RetryPolicy(max_attempts=2))
    rules.check(request)
    first = dict(rules._compiled)
    for _ in range(3):
        rules.check(request)
    assert set(first) == {"agentrt.v1.CreateRunRequest", "agentrt.v1.RetryPolicy", "agentrt.v1.Budgets"}
    assert all(rules._compiled[name] is compiled for name, compiled in first.items())
