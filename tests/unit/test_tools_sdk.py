from typing import Annotated, Literal

import pydantic
import pytest

from agentrt.core.errors import InvalidArgument, ToolError
from agentrt.tools_sdk import CallContext, ToolDefinition, _parse_docstring, tool
from examples.unit_converter import convert_units


class Forecast(pydantic.BaseModel):
    city: str
    temperature: float


@tool(version="2.1.0", idempotent=True, timeout_s=3)
def weather(city: str, units: Literal["c", "f"] = "c", days: int = 1) -> Forecast:
    """Weather for a city.

    Args:
        city: City name, e.g. "Paris".
        units: Temperature units,
            Celsius or Fahrenheit.
        days: How many days ahead.

    Returns:
        The forecast.
    """
    return Forecast(city=city, temperature=21.5 if units == "c" else 70.7)


def test_schema_is_derived_from_signature_and_docstring() -> None:
    assert isinstance(weather, ToolDefinition)
    assert weather.description == "Weather for a city."
    schema = weather.input_schema()
    assert schema["type"] == "object"
    assert schema["required"] == ["city"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["city"]["description"] == 'City name, e.g. "Paris".'
    assert schema["properties"]["units"]["enum"] == ["c", "f"]
    assert schema["properties"]["units"]["default"] == "c"
    assert schema["properties"]["units"]["description"] == "Temperature units, Celsius or Fahrenheit."
    assert schema["properties"]["days"]["type"] == "integer"
    assert weather.output_schema()["required"] == ["city", "temperature"]
    spec = weather.spec()
    assert (spec.name, spec.version, spec.idempotent) == ("weather", "2.1.0", True)
    assert spec.default_timeout.ToSeconds() == 3


async def test_invoke_validates_calls_and_serializes() -> None:
    assert await weather.invoke({"city": "Oslo", "units": "f"}) == {"city": "Oslo", "temperature": 70.7}
    with pytest.raises(InvalidArgument, match=r"arguments\.units"):
        await weather.invoke({"city": "Oslo", "units": "k"})
    with pytest.raises(InvalidArgument, match=r"arguments\.extra"):
        await weather.invoke({"city": "Oslo", "extra": 1})
    assert weather("Rome").city == "Rome"  # still a plain function


async def test_async_tools_and_bare_decorator() -> None:
    @tool
    async def shout(text: str) -> str:
        """Upper-case text."""
        return text.upper()

    assert (shout.name, shout.version, shout.description) == ("shout", "1.0.0", "Upper-case text.")
    assert await shout.invoke({"text": "hi"}) == "HI"


def test_unsupported_signatures_fail_at_decoration() -> None:
    with pytest.raises(TypeError, match=r"\*args and \*\*kwargs"):

        @tool
        def bad(*values: int) -> int:
            return sum(values)


def test_docstring_without_args_section() -> None:
    assert _parse_docstring("Just a summary.") == ("Just a summary.", {})
    assert _parse_docstring(None) == ("", {})


async def test_example_unit_converter() -> None:
    assert (await convert_units.invoke({"value": 10, "from_unit": "km", "to_unit": "mi"}))[
        "value"
    ] == 6.213712
    assert (await convert_units.invoke({"value": 100, "from_unit": "c", "to_unit": "f"}))["value"] == 212
    assert (await convert_units.invoke({"value": 1, "from_unit": "gal", "to_unit": "l"}))[
        "text"
    ] == "1 gal = 3.78541 l"
    with pytest.raises(ToolError, match="cannot convert km"):
        await convert_units.invoke({"value": 1, "from_unit": "km", "to_unit": "kg"})
    with pytest.raises(ToolError, match="below absolute zero"):
        await convert_units.invoke({"value": -300, "from_unit": "c", "to_unit": "k"})


@tool
def notes(note: str, call: CallContext) -> dict[str, object]:
    """Keep a note for the caller.

    Args:
        note: The note.
    """
    return {"principal": call.principal, "run": call.run_id, "attempt": call.attempt, "note": note}


def test_a_call_context_parameter_is_no_argument() -> None:
    assert notes.context_parameter == "call"
    schema = notes.input_schema()
    assert list(schema["properties"]) == ["note"]
    assert schema["required"] == ["note"]
    assert "CallContext" not in str(schema)


async def test_the_call_context_is_given_and_cannot_be_set_by_arguments() -> None:
    given = CallContext(principal="alice", run_id="r1", step_id="s1", attempt=2, idempotency_key="r1/s1")
    assert await notes.invoke({"note": "n"}, given) == {
        "principal": "alice",
        "run": "r1",
        "attempt": 2,
        "note": "n",
    }
    # Without one (a direct call, a unit test), the call is `local`'s.
    assert (await notes.invoke({"note": "n"}))["principal"] == "local"
    with pytest.raises(InvalidArgument, match=r"arguments\.call"):
        await notes.invoke({"note": "n", "call": {"principal": "mallory"}}, given)


def test_optional_and_annotated_call_contexts_are_injected_too() -> None:
    @tool
    def optional(x: int, ctx: Annotated[CallContext | None, "who"] = None) -> int:
        return x

    assert (optional.context_parameter, list(optional.input_schema()["properties"])) == ("ctx", ["x"])

    def two(x: int, ctx: CallContext, other: Annotated[CallContext, "meta"] | None = None) -> int:
        return x

    with pytest.raises(TypeError, match="more than one CallContext"):
        tool(two)
