"""A small but real tool provider: unit conversion for length, mass, volume and temperature.

    agentrt tools serve examples.unit_converter:convert_units

then plan it with the rule planner's explicit form:

    agentrt run 'use convert_units with {"value": 10, "from_unit": "km", "to_unit": "mi"}'
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from agentrt.tools_sdk import ToolError, tool

Unit = Literal[
    "mm",
    "cm",
    "m",
    "km",
    "in",
    "ft",
    "yd",
    "mi",
    "mg",
    "g",
    "kg",
    "oz",
    "lb",
    "ml",
    "l",
    "gal",
    "c",
    "f",
    "k",
]

# Factor to the base unit of each dimension: metre, gram, litre.
_LINEAR: dict[str, tuple[str, float]] = {
    "mm": ("length", 0.001),
    "cm": ("length", 0.01),
    "m": ("length", 1.0),
    "km": ("length", 1000.0),
    "in": ("length", 0.0254),
    "ft": ("length", 0.3048),
    "yd": ("length", 0.9144),
    "mi": ("length", 1609.344),
    "mg": ("mass", 0.001),
    "g": ("mass", 1.0),
    "kg": ("mass", 1000.0),
    "oz": ("mass", 28.349523125),
    "lb": ("mass", 453.59237),
    "ml": ("volume", 0.001),
    "l": ("volume", 1.0),
    "gal": ("volume", 3.785411784),
}
_TEMPERATURE = {"c", "f", "k"}


class Conversion(BaseModel):
    value: float
    unit: str
    text: str


def _to_kelvin(value: float, unit: str) -> float:
    return {"k": value, "c": value + 273.15, "f": (value - 32) * 5 / 9 + 273.15}[unit]


def _from_kelvin(value: float, unit: str) -> float:
    return {"k": value, "c": value - 273.15, "f": (value - 273.15) * 9 / 5 + 32}[unit]


@tool(version="1.0.0", idempotent=True, read_only=True, open_world=False)
def convert_units(value: float, from_unit: Unit, to_unit: Unit) -> Conversion:
    """Convert a quantity between units of length, mass, volume or temperature.

    Args:
        value: The quantity to convert.
        from_unit: Unit of `value` (mm, cm, m, km, in, ft, yd, mi, mg, g, kg, oz, lb, ml, l, gal, c, f, k).
        to_unit: Unit to convert to; must measure the same thing as from_unit.
    """
    if from_unit in _TEMPERATURE or to_unit in _TEMPERATURE:
        if not {from_unit, to_unit} <= _TEMPERATURE:
            raise ToolError(
                f"cannot convert {from_unit} to {to_unit}: only temperatures convert to temperatures"
            )
        if _to_kelvin(value, from_unit) < 0:
            raise ToolError(f"{value} {from_unit} is below absolute zero")
        result = _from_kelvin(_to_kelvin(value, from_unit), to_unit)
    else:
        (from_kind, from_factor), (to_kind, to_factor) = _LINEAR[from_unit], _LINEAR[to_unit]
        if from_kind != to_kind:
            raise ToolError(f"cannot convert {from_unit} ({from_kind}) to {to_unit} ({to_kind})")
        result = value * from_factor / to_factor
    rounded = round(result, 6)
    return Conversion(value=rounded, unit=to_unit, text=f"{value:g} {from_unit} = {rounded:g} {to_unit}")
