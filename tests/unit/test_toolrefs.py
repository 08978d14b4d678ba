"""Reading a step through its tool's declared references never trusts the output: values of
the wrong type are skipped, sizes are bounded, and an undeclared tool or action names nothing."""

from __future__ import annotations

from agentrt.core import toolrefs
from agentrt.v1 import tool_pb2

REFS = toolrefs.references(
    entities=[("todo", "/todo", "id", "text"), ("todo", "/todos", "id", "text")],
    result="/value",
    actions={"add": (toolrefs.ADDED, "delete"), "list": (toolrefs.SHOWN, "")},
)
TOOL = tool_pb2.Tool(name="t", references=REFS)


def test_pointers_follow_rfc_6901() -> None:
    doc = {"a/b": {"m~n": [10, 20]}, "": 1}
    assert toolrefs.pointed(doc, "/a~1b/m~0n/1") == 20
    assert toolrefs.pointed(doc, "/a~1b/m~0n/7") is None
    assert toolrefs.pointed(doc, "/missing/x") is None
    assert toolrefs.pointed(doc, "") is doc


def test_hostile_outputs_name_only_well_formed_things() -> None:
    output = {
        "todos": [
            {"id": 1, "text": "ok"},
            {"id": True, "text": "a bool is no id"},
            {"id": 2.0, "text": "a Struct's double is"},
            {"id": 3, "text": None},
            "not an object",
            {"id": "x" * 65, "text": "an id too long"},
            {"id": 1, "text": "ok"},  # named twice: once
        ],
        "value": [1, 2],
    }
    meaning = toolrefs.read_step(TOOL, {"action": "list"}, output)
    assert meaning.entities == (
        toolrefs.Entity("todo", 1, "ok"),
        toolrefs.Entity("todo", 2, "a Struct's double is"),
    )
    assert meaning.result is None  # a list is no result


def test_a_step_names_at_most_max_named_things_each_text_bounded() -> None:
    many = {"todos": [{"id": n, "text": "t" * 5000} for n in range(1, 1000)]}
    meaning = toolrefs.read_step(TOOL, {"action": "list"}, many)
    assert len(meaning.entities) == toolrefs.MAX_NAMED
    assert all(len(e.text) == toolrefs.MAX_TEXT_CHARS for e in meaning.entities)


def test_undeclared_tools_and_actions_name_nothing() -> None:
    output = {"todo": {"id": 1, "text": "x"}, "value": 4}
    assert toolrefs.read_step(tool_pb2.Tool(name="plain"), {"action": "add"}, output) == toolrefs.NOTHING
    other = toolrefs.read_step(TOOL, {"action": "purge"}, output)
    assert other.entities == () and other.effect == toolrefs.Effect.EFFECT_UNSPECIFIED
    assert other.result == "4"  # a result is a result whatever the action
