"""What a tool's outputs mean to a conversation (its catalog entry's ToolReferences), read the
same way by every planner: the things a call's output names (kind, id, text), what the call did
to them, the action that reverses it, and the result it computed.

A tool declares this (built-ins in tools_svc/server.py, providers in their ToolSpec); the rule
planner's discourse model reads prior turns' steps through `read_step`, so "it", "the second one"
and "undo that" work for any tool that declares its outputs, and for none that does not.
Declarations come from providers: `check` bounds them where tools register, and reading an
output never trusts it (a value of the wrong type is skipped, at most MAX_NAMED things a step).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agentrt.core.annotations import action_of
from agentrt.v1 import tool_pb2

Effect = tool_pb2.EntityEffect.Effect
SHOWN, ADDED, CHANGED, REMOVED = (
    Effect.EFFECT_SHOWN,
    Effect.EFFECT_ADDED,
    Effect.EFFECT_CHANGED,
    Effect.EFFECT_REMOVED,
)

MAX_ENTITY_OUTPUTS = 8
MAX_ACTIONS = 32
MAX_POINTER_CHARS = 256
MAX_FIELD_CHARS = 64
MAX_NAMED = 200  # things one step's output may name (a listing's page is at most 100)
MAX_TEXT_CHARS = 1000
# An object's fields kept as its state (the guard an undo carries): scalars only, at most these.
MAX_STATE_FIELDS = 16
_KIND = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


@dataclass(frozen=True)
class Entity:
    """One thing a person saw named: its kind, id (as the tool gave it) and text."""

    kind: str
    id: int | str
    text: str
    # The object as the output showed it (its scalar fields, bounded), for an undo's guard; not
    # part of what the thing is (the same todo done and not done is one todo).
    state: tuple[tuple[str, Any], ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class StepMeaning:
    """What one succeeded step means to the conversation."""

    effect: int  # an Effect; EFFECT_UNSPECIFIED: it made nothing salient
    entities: tuple[Entity, ...] = ()
    inverse_action: str = ""
    result: str | None = None  # the computed value, as text ("48", "2.5")
    result_of: str = ""  # what it is the result of ("12 * 4")
    guard_argument: str = ""  # the inverse call's argument for the things as they were left


NOTHING = StepMeaning(Effect.EFFECT_UNSPECIFIED)


def read_step(tool: tool_pb2.Tool | None, arguments: Any, output: Any) -> StepMeaning:
    """What a call of `tool` with `arguments` (a Struct or a dict) that answered `output` (plain
    values) means, as the tool declares; NOTHING for an undeclared tool or action."""
    if tool is None or not tool.HasField("references"):
        return NOTHING
    refs = tool.references
    result, result_of = None, ""
    if refs.result and isinstance(output, Mapping):
        value = pointed(output, refs.result)
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            value = None
        if value is not None:
            result = _as_text(value)
            source = pointed(output, refs.result_of) if refs.result_of else None
            result_of = source[:MAX_TEXT_CHARS] if isinstance(source, str) else ""
    declared = refs.actions.get(action_of(arguments) or "")
    if declared is None:
        return StepMeaning(Effect.EFFECT_UNSPECIFIED, result=result, result_of=result_of)
    entities: list[Entity] = []
    for place in refs.entities:
        found = pointed(output, place.pointer)
        for item in found if isinstance(found, list) else [found]:
            if len(entities) >= MAX_NAMED:
                break
            if (entity := _entity(item, place)) is not None and entity not in entities:
                entities.append(entity)
    return StepMeaning(
        declared.effect, tuple(entities), declared.inverse_action, result, result_of, declared.guard_argument
    )


def pointed(value: Any, pointer: str) -> Any:
    """The value at JSON Pointer `pointer` (RFC 6901) in `value`, or None."""
    if pointer == "":
        return value
    for escaped in pointer.split("/")[1:]:
        token = escaped.replace("~1", "/").replace("~0", "~")
        if isinstance(value, Mapping):
            value = value.get(token)
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return None
    return value


def _entity(item: Any, place: tool_pb2.EntityOutput) -> Entity | None:
    if not isinstance(item, Mapping):
        return None
    key, text = item.get(place.id_field), item.get(place.text_field)
    if isinstance(key, float) and key.is_integer():  # a Struct's numbers are doubles
        key = int(key)
    if isinstance(key, bool) or not isinstance(key, int | str) or not isinstance(text, str):
        return None
    if isinstance(key, str) and not 0 < len(key) <= MAX_FIELD_CHARS:
        return None
    return Entity(place.kind, key, text[:MAX_TEXT_CHARS], _state(item))


def _state(item: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The object's scalar fields (a bounded copy: a provider's output is not trusted)."""
    kept: list[tuple[str, Any]] = []
    for key, raw in item.items():
        if len(kept) >= MAX_STATE_FIELDS:
            break
        if isinstance(key, str) and len(key) <= MAX_FIELD_CHARS:
            # a Struct's numbers are doubles
            value = int(raw) if isinstance(raw, float) and raw.is_integer() else raw
            if isinstance(value, str):
                kept.append((key, value[:MAX_TEXT_CHARS]))
            elif value is None or isinstance(value, bool | int | float):
                kept.append((key, value))
    return tuple(kept)


def _as_text(value: int | float | str) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)[:MAX_TEXT_CHARS]


def check(refs: tool_pb2.ToolReferences) -> list[tuple[str, str]]:
    """Violations of a registration's references (field, what is wrong)."""
    problems: list[tuple[str, str]] = []
    if len(refs.entities) > MAX_ENTITY_OUTPUTS:
        problems.append(("spec.references.entities", f"at most {MAX_ENTITY_OUTPUTS}"))
    for n, place in enumerate(refs.entities[:MAX_ENTITY_OUTPUTS]):
        where = f"spec.references.entities[{n}]"
        if not _KIND.match(place.kind):
            problems.append((f"{where}.kind", "1 to 32 lowercase letters, digits or _, a letter first"))
        if not _is_pointer(place.pointer):
            problems.append((f"{where}.pointer", "a JSON Pointer ('/todos')"))
        for name in ("id_field", "text_field"):
            if not 0 < len(getattr(place, name)) <= MAX_FIELD_CHARS:
                problems.append((f"{where}.{name}", f"1 to {MAX_FIELD_CHARS} characters"))
    for name in ("result", "result_of"):
        if getattr(refs, name) and not _is_pointer(getattr(refs, name)):
            problems.append((f"spec.references.{name}", "a JSON Pointer ('/value')"))
    if len(refs.actions) > MAX_ACTIONS:
        problems.append(("spec.references.actions", f"at most {MAX_ACTIONS}"))
    for action, effect in list(refs.actions.items())[:MAX_ACTIONS]:
        if len(action) > MAX_FIELD_CHARS or not action.isprintable():
            problems.append(("spec.references.actions", f"action names: at most {MAX_FIELD_CHARS} printable"))
        if effect.effect not in Effect.values():
            problems.append((f"spec.references.actions.{action}.effect", "not an effect"))
        for name in ("inverse_action", "guard_argument"):
            value = getattr(effect, name)
            if len(value) > MAX_FIELD_CHARS or not value.isprintable():
                problems.append((f"spec.references.actions.{action}.{name}", "a name"))
    return problems


def _is_pointer(pointer: str) -> bool:
    return pointer.startswith("/") and len(pointer) <= MAX_POINTER_CHARS and pointer.isprintable()


def references(
    *,
    entities: list[tuple[str, str, str, str]] = (),  # type: ignore[assignment]
    result: str = "",
    result_of: str = "",
    actions: Mapping[str, tuple[int, str] | tuple[int, str, str]] | None = None,
) -> tool_pb2.ToolReferences:
    """A ToolReferences from plain values: entities as (kind, pointer, id_field, text_field), actions
    as {action: (effect, inverse_action)} or (effect, inverse_action, guard_argument)."""
    return tool_pb2.ToolReferences(
        entities=[
            tool_pb2.EntityOutput(kind=k, pointer=p, id_field=i, text_field=t) for k, p, i, t in entities
        ],
        result=result,
        result_of=result_of,
        actions={
            a: tool_pb2.EntityEffect(
                effect=e[0], inverse_action=e[1], guard_argument=e[2] if len(e) > 2 else ""
            )
            for a, e in (actions or {}).items()
        },
    )
