"""Request field rules: the `(agentrt.v1.rules)` options of the protos, checked and documented.

Each rule is stated once, on its field in the .proto (field_rules.proto says what a rule means).
The executor checks every RunService request with `Rules.check`, and the gateway's OpenAPI
document states the same rules as JSON Schema with `Rules.schema`, so what the document calls
valid is what the server accepts. A limit operators configure (the longest prompt, the agent
budgets) is named by its setting in the proto (a common setting, so the executor's and the
gateway's sections both have it); a `Rules` is made with the settings the server runs with, and
reads the configured value for both purposes.

Checking is on the hot path of every call, so each message type's rules are compiled once (per
Rules) into plain closures over str and int operations: a whole CreateRunRequest costs about
5 µs, a GetRunRequest under 1 µs (protovalidate's CEL interpreter took milliseconds). The only
regular expression a check runs is a rule's own `pattern`, anchored and without nested
quantifiers (page tokens). The JSON Schema side spells the same predicates as patterns; the
Python predicates (str.isprintable, str.isspace) and the generated character classes come from
the same Unicode database, so they agree on every character (tests/unit/test_fieldrules.py).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from google.protobuf import descriptor, duration_pb2
from google.protobuf.message import Message

from agentrt.core.errors import InvalidArgument
from agentrt.v1 import field_rules_pb2

if TYPE_CHECKING:
    from agentrt.config import CommonSettings

FD = descriptor.FieldDescriptor
NUL_MESSAGE = "must not contain NUL characters"
_NANOS = 1_000_000_000
_DURATION = "google.protobuf.Duration"
_INTS = {FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32, FD.TYPE_UINT32, FD.TYPE_FIXED32}
_INT64S = {FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64, FD.TYPE_UINT64, FD.TYPE_FIXED64}
_FLOATS = {FD.TYPE_DOUBLE, FD.TYPE_FLOAT}
# A value's type range, for integer fields without a tighter rule.
TYPE_RANGE: dict[int, tuple[int, int]] = {
    **{t: (-(2**31), 2**31 - 1) for t in (FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32)},
    **{t: (0, 2**32 - 1) for t in (FD.TYPE_UINT32, FD.TYPE_FIXED32)},
    **{t: (-(2**63), 2**63 - 1) for t in (FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64)},
    **{t: (0, 2**64 - 1) for t in (FD.TYPE_UINT64, FD.TYPE_FIXED64)},
}

Check = Callable[[Any], str | None]  # a field's value -> why it is refused, or None


@dataclass(frozen=True)
class Rule:
    """One field's rules with every setting read: what both the checks and the schema use."""

    min_len: int = 0
    max_len: int | None = None
    printable: bool = False
    no_nul: bool = False
    not_blank: bool = False
    gte: float | None = None
    gt: float | None = None
    lte: float | None = None
    defined_only: bool = False
    pattern: str = ""
    setting: str | None = None  # AGENTRT_<NAME> of the configured upper bound, if one is
    # Maps: how many entries, and the rules of their keys and values (strings).
    max_entries: int = 0
    keys: Rule | None = None
    values: Rule | None = None

    @property
    def limit_note(self) -> str:
        return f" ({self.setting})" if self.setting else ""


class Rules:
    """The protos' field rules with `settings`' values: checks requests, and states the rules
    as JSON Schema. Make one per process (the executor's servicer, the gateway's document)."""

    def __init__(self, settings: CommonSettings | None) -> None:
        # None: rules that name a setting cannot be read (the caller checks only fixed ones).
        self._settings = settings
        self._compiled: dict[str, _Compiled] = {}

    # -- checking ------------------------------------------------------------------------------

    def violations(self, message: Message) -> list[tuple[str, str]]:
        """(field path, why) for each field of `message` (and of its set submessages) that breaks
        its rules; the first broken rule of each field."""
        found: list[tuple[str, str]] = []
        self._compile(message.DESCRIPTOR).collect(message, "", found)
        return found

    def check(self, message: Message) -> None:
        """INVALID_ARGUMENT with a BadRequest field violation per broken field, or nothing."""
        if violations := self.violations(message):
            raise InvalidArgument(
                f"invalid {message.DESCRIPTOR.name}: " + "; ".join(f"{f} {d}" for f, d in violations),
                violations=violations,
            )

    def problem(self, message_type: descriptor.Descriptor, name: str, value: Any) -> str | None:
        """Why `value` breaks the rules of `message_type`'s field `name`, or None."""
        check = self._compile(message_type).by_name.get(name)
        return None if check is None else check(value)

    def check_field(self, message_type: descriptor.Descriptor, name: str, value: Any) -> None:
        """One field's rules on a value given apart from its message: INVALID_ARGUMENT or nothing."""
        if (problem := self.problem(message_type, name, value)) is not None:
            raise InvalidArgument(f"{name} {problem}", violations=[(name, problem)])

    def _compile(self, message_type: descriptor.Descriptor) -> _Compiled:
        compiled = self._compiled.get(message_type.full_name)
        if compiled is not None:
            return compiled
        compiled = self._compiled[message_type.full_name] = _Compiled()  # recursion-safe
        try:
            checks, nested = [], []
            for f in message_type.fields:
                rule = self.rule(f)
                if rule is not None:
                    check = _field_check(f, rule)
                    if check is not None:
                        # (is an optional message: a map has no presence, it is checked always)
                        checks.append((f.name, f.type == FD.TYPE_MESSAGE and not _is_map(f), check))
                        compiled.by_name[f.name] = check
                elif f.type == FD.TYPE_MESSAGE and not f.is_repeated and _has_rules(f.message_type):
                    nested.append((f.name, self._compile(f.message_type)))
        except BaseException:
            # A rule that cannot apply fails every time, never once and then checks nothing.
            del self._compiled[message_type.full_name]
            raise
        compiled.checks, compiled.nested = tuple(checks), tuple(nested)
        return compiled

    # -- the rules, resolved -------------------------------------------------------------------

    def rule(self, field: descriptor.FieldDescriptor) -> Rule | None:
        """`field`'s rules with settings read, or None when it has none."""
        options = field.GetOptions()
        if not options.HasExtension(field_rules_pb2.rules):
            return None
        raw = options.Extensions[field_rules_pb2.rules]
        if _is_map(field):
            return Rule(
                max_entries=raw.max_entries,
                keys=self._plain(raw.keys) if raw.HasField("keys") else None,
                values=self._plain(raw.values) if raw.HasField("values") else None,
            )
        return self._resolved(raw, field.type == FD.TYPE_STRING)

    def _plain(self, raw: field_rules_pb2.FieldRules) -> Rule:
        """A map's key or value rules (strings)."""
        return self._resolved(raw, True)

    def _resolved(self, raw: field_rules_pb2.FieldRules, is_string: bool) -> Rule:
        bound: float | None = None
        setting = None
        if raw.max_setting:
            bound = self._setting(raw.max_setting)
            setting = "AGENTRT_" + raw.max_setting.split(".")[0].upper()
        max_len = raw.max_len or None
        lte = raw.lte if raw.HasField("lte") else None
        if bound is not None:
            if is_string:
                max_len = int(bound)
            else:
                lte = bound
        return Rule(
            min_len=raw.min_len,
            max_len=max_len,
            printable=raw.printable,
            no_nul=raw.no_nul,
            not_blank=raw.not_blank,
            gte=raw.gte if raw.HasField("gte") else None,
            gt=raw.gt if raw.HasField("gt") else None,
            lte=lte,
            defined_only=raw.defined_only,
            pattern=raw.pattern,
            setting=setting,
        )

    def refuses_default(self, field: descriptor.FieldDescriptor) -> bool:
        """Whether `field`'s rules refuse its proto3 default ("" or 0): then a request must
        give it (in JSON: the field is required). An unset Duration is never checked."""
        check = _field_check(field, self.rule(field))
        if check is None or field.type == FD.TYPE_MESSAGE:
            return False
        return check(field.default_value) is not None

    def _setting(self, path: str) -> float:
        if self._settings is None:
            raise ValueError(f"field rule names the setting {path!r}: these Rules have no settings")
        value: Any = self._settings
        for name in path.split("."):
            if not hasattr(value, name):
                raise ValueError(f"field rule names an unknown setting {path!r}")
            value = getattr(value, name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"field rule setting {path!r} is not a number")
        return value

    # -- the rules as JSON Schema --------------------------------------------------------------

    def schema(self, field: descriptor.FieldDescriptor) -> tuple[dict[str, Any], str]:
        """JSON Schema keywords that state `field`'s rules for its proto3 JSON form (strings:
        lengths and patterns; numbers: bounds; int64 also as a decimal string; durations as
        their "1.5s" strings), and a note naming the settings behind them ("" when none)."""
        rule = self.rule(field)
        if rule is None:
            return {}, ""
        note = f"The limit is {rule.setting}." if rule.setting else ""
        if _is_map(field):
            keywords: dict[str, Any] = {}
            if rule.max_entries:
                keywords["maxProperties"] = rule.max_entries
            if rule.keys is not None:
                keywords["propertyNames"] = {"type": "string", **_string_schema(rule.keys)}
            if rule.values is not None:
                keywords["additionalProperties"] = {"type": "string", **_string_schema(rule.values)}
            return keywords, note
        if field.type == FD.TYPE_STRING:
            return _string_schema(rule), note
        if field.type == FD.TYPE_MESSAGE:  # a Duration (checked when compiled)
            return {"pattern": duration_pattern(*_duration_bounds(rule))}, note
        if field.type == FD.TYPE_ENUM:
            return {}, note  # JSON names the defined values only
        keywords = {}
        if field.type in _INTS or field.type in _INT64S:
            low, high = integer_bounds(field, rule)
            keywords = {"minimum": low, "maximum": high}
            if field.type in _INT64S and low >= 0:
                zero = "-0+|" if low == 0 else ""
                keywords["pattern"] = f"^(?:{zero}0*(?:{decimal_range(low, high)}))$"
        else:
            if rule.gte is not None:
                keywords["minimum"] = rule.gte
            if rule.gt is not None:
                keywords["exclusiveMinimum"] = rule.gt
            if rule.lte is not None:
                keywords["maximum"] = rule.lte
        return keywords, note


def integer_bounds(field: descriptor.FieldDescriptor, rule: Rule | None) -> tuple[int, int]:
    """The values an integer field accepts: its rules within its type's range."""
    low, high = TYPE_RANGE[field.type]
    if rule is not None:
        if rule.gte is not None:
            low = max(low, math.ceil(rule.gte))
        if rule.gt is not None:
            low = max(low, math.floor(rule.gt) + 1)
        if rule.lte is not None:
            high = min(high, math.floor(rule.lte))
    return low, high


@dataclass
class _Compiled:
    checks: tuple[tuple[str, bool, Check], ...] = ()  # (field, is a message, check)
    # Submessage fields without rules of their own, whose message has fields with rules.
    nested: tuple[tuple[str, _Compiled], ...] = ()
    by_name: dict[str, Check] = dataclasses.field(default_factory=dict)

    def collect(self, message: Message, prefix: str, found: list[tuple[str, str]]) -> None:
        for name, is_message, check in self.checks:
            if is_message and not message.HasField(name):
                continue  # an unset Duration: the server's default
            problem = check(getattr(message, name))
            if problem is not None:
                found.append((prefix + name, problem))
        for name, compiled in self.nested:
            if message.HasField(name):
                compiled.collect(getattr(message, name), f"{prefix}{name}.", found)


def _has_rules(message_type: descriptor.Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    if message_type.full_name in seen:
        return False
    seen = seen | {message_type.full_name}
    for field in message_type.fields:
        if field.GetOptions().HasExtension(field_rules_pb2.rules):
            return True
        if field.type == FD.TYPE_MESSAGE and _has_rules(field.message_type, seen):
            return True
    return False


def _field_check(field: descriptor.FieldDescriptor, rule: Rule | None) -> Check | None:
    """The compiled check of `field`; a rule that cannot apply to its type fails here, once."""
    if rule is None:
        return None
    if _is_map(field):
        return _map_check(field, rule)
    if field.is_repeated:
        raise ValueError(f"{field.full_name}: field rules apply to single fields and maps only")
    string_rules = (
        rule.min_len or rule.max_len or rule.printable or rule.no_nul or rule.not_blank or rule.pattern
    )
    number_rules = rule.gte is not None or rule.gt is not None or rule.lte is not None
    kind = field.type
    if string_rules and kind != FD.TYPE_STRING:
        raise ValueError(f"{field.full_name}: string rules on a non-string field")
    if rule.defined_only and kind != FD.TYPE_ENUM:
        raise ValueError(f"{field.full_name}: defined_only on a non-enum field")
    if number_rules and not (kind in _INTS or kind in _INT64S or kind in _FLOATS or _is_duration(field)):
        raise ValueError(f"{field.full_name}: number rules on a field neither a number nor a Duration")
    if kind == FD.TYPE_STRING:
        return _string_check(rule)
    if kind == FD.TYPE_ENUM:
        return _enum_check(field.enum_type) if rule.defined_only else None
    if kind == FD.TYPE_MESSAGE:
        _duration_bounds(rule)  # refuses what duration_pattern cannot state
        return _duration_check(rule)
    return _number_check(rule)


def _is_map(field: descriptor.FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _map_check(field: descriptor.FieldDescriptor, rule: Rule) -> Check:
    """A map's size, then each key's and each value's rules (the first broken one)."""
    entry = field.message_type
    for part, part_rule in (("key", rule.keys), ("value", rule.values)):
        if part_rule is not None and entry.fields_by_name[part].type != FD.TYPE_STRING:
            raise ValueError(f"{field.full_name}: {part} rules on a map whose {part}s are not strings")
    check_key = _string_check(rule.keys) if rule.keys is not None else None
    check_value = _string_check(rule.values) if rule.values is not None else None

    def check(value: Any) -> str | None:
        if rule.max_entries and len(value) > rule.max_entries:
            return f"must have at most {rule.max_entries} entries, has {len(value)}"
        for key in sorted(value):
            if check_key is not None and (problem := check_key(key)) is not None:
                return f"key {key[:64]!r} {problem}"
            if check_value is not None and (problem := check_value(value[key])) is not None:
                return f"value of {key[:64]!r} {problem}"
        return None

    return check


def _is_duration(field: descriptor.FieldDescriptor) -> bool:
    return field.type == FD.TYPE_MESSAGE and field.message_type.full_name == _DURATION


def _string_check(rule: Rule) -> Check:
    min_len, max_len = rule.min_len, rule.max_len
    printable, no_nul, not_blank = rule.printable, rule.no_nul, rule.not_blank
    if rule.pattern and not (rule.pattern.startswith("^") and rule.pattern.endswith("$")):
        raise ValueError(f"field rule pattern {rule.pattern!r} is not anchored (^...$)")
    # fullmatch: Python's $ also matches before a final newline, ECMA-262's does not.
    pattern = re.compile(rule.pattern).fullmatch if rule.pattern else None
    mismatch = f"is not of the form {rule.pattern}"
    too_short = "must not be empty" if min_len == 1 else f"must be at least {min_len} characters"
    too_long = f"must be at most {max_len} characters{rule.limit_note}"

    def check(value: str) -> str | None:
        if len(value) < min_len:
            return too_short
        # isspace() is what strip() strips: blank means strip() leaves nothing.
        if not_blank and (not value or value.isspace()):
            return "must not be empty"
        if max_len is not None and len(value) > max_len:
            return too_long
        if no_nul and "\x00" in value:
            return NUL_MESSAGE
        if printable and not value.isprintable():
            return "must be printable (no control, format or separator characters but the space)"
        if pattern is not None and pattern(value) is None:
            return mismatch
        return None

    return check


def _number_check(rule: Rule) -> Check:
    gte, gt, lte = rule.gte, rule.gt, rule.lte
    below = f"must be >= {gte:g}" if gte is not None else ""
    not_above = ("must be positive" if gt == 0 else f"must be > {gt:g}") if gt is not None else ""
    above = f"must be at most {lte:g}{rule.limit_note}" if lte is not None else ""

    def check(value: float) -> str | None:
        # Written as "not within" so that NaN, which compares false, is refused too.
        if gte is not None and not value >= gte:
            return below
        if gt is not None and not value > gt:
            return not_above
        if lte is not None and not value <= lte:
            return above
        return None

    return check


def _enum_check(enum_type: descriptor.EnumDescriptor) -> Check:
    defined = frozenset(v.number for v in enum_type.values)

    def check(value: int) -> str | None:
        return None if value in defined else f"must be a {enum_type.name} value, not {value}"

    return check


def _duration_bounds(rule: Rule) -> tuple[bool, int]:
    """(zero allowed, the most in nanoseconds) of a Duration's rules: a lower bound of 0,
    inclusive or not, and an upper bound, which is all durations need."""
    if rule.gte not in (None, 0) or rule.gt not in (None, 0) or (rule.gte is None) == (rule.gt is None):
        raise ValueError("duration rules take gte: 0 or gt: 0, and lte or max_setting")
    if rule.lte is None or not math.isfinite(rule.lte) or rule.lte <= 0:
        raise ValueError("duration rules need a positive upper bound (lte or max_setting)")
    return rule.gte is not None, round(rule.lte * _NANOS)


def _duration_check(rule: Rule) -> Check:
    allow_zero, most = _duration_bounds(rule)
    limit = f"must be at most {most / _NANOS:g}s{rule.limit_note}"

    def check(duration: duration_pb2.Duration) -> str | None:
        seconds, nanos = duration.seconds, duration.nanos
        # protobuf's own rules first: a malformed value is not read as a number.
        if not -999_999_999 <= nanos <= 999_999_999 or (seconds > 0 > nanos) or (seconds < 0 < nanos):
            return "is not a valid Duration (seconds and nanos must have the same sign, |nanos| < 1e9)"
        total = seconds * _NANOS + nanos  # exact: no float between the value and its bound
        if total < 0:
            return "must not be negative" if allow_zero else "must be positive"
        if total == 0 and not allow_zero:
            return "must be positive"
        if total > most:
            return limit
        return None

    return check


# -- patterns ----------------------------------------------------------------------------------
# Written in the subset of regular expressions that ECMA-262 (JSON Schema's dialect), Python's re
# and Rust's regex read alike: \uXXXX escapes within the BMP, characters beyond it literally,
# no lookaround, no nested quantifiers.


def _class_of(predicate: Callable[[str], bool]) -> str:
    """A character class body (without brackets) of every code point `predicate` holds for.
    Surrogates, which no JSON text or URL decodes to, go with their neighbours: a range may span
    them, but none starts or ends on one (Rust's regex refuses them; jsonschema-rs also misreads
    a range starting at U+E000 right after one ending at U+D7FF)."""
    ranges: list[tuple[int, int]] = []
    start = None
    for code in range(0x110000):
        holds = predicate(chr(code))
        if holds and start is None:
            start = code
        elif not holds and start is not None:
            ranges.append((start, code - 1))
            start = None
    if start is not None:
        ranges.append((start, 0x10FFFF))
    if any(0xD800 <= end <= 0xDFFF for pair in ranges for end in pair):
        raise ValueError("a character class would start or end on a surrogate")

    def one(code: int) -> str:
        return f"\\u{code:04x}" if code <= 0xFFFF else chr(code)

    return "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges)


@functools.cache
def not_printable_class() -> str:
    """The characters str.isprintable refuses, as a class body."""
    return _class_of(lambda c: not c.isprintable())


@functools.cache
def whitespace_class() -> str:
    """The characters str.isspace (so str.strip) counts as whitespace, as a class body."""
    return _class_of(str.isspace)


def _string_schema(rule: Rule) -> dict[str, Any]:
    keywords: dict[str, Any] = {}
    min_len = max(rule.min_len, 1 if rule.not_blank else 0)
    if min_len:
        keywords["minLength"] = min_len
    if rule.max_len is not None:
        keywords["maxLength"] = rule.max_len
    if rule.printable:
        keywords["pattern"] = f"^[^{not_printable_class()}]*$"
    elif rule.no_nul:
        keywords["pattern"] = "^[^\\u0000]*$"
    if rule.not_blank:
        keywords["not"] = {"pattern": f"^[{whitespace_class()}]*$"}
    if rule.pattern:
        if "pattern" in keywords:
            raise ValueError("a field rule pattern with printable or no_nul: state one of them")
        keywords["pattern"] = rule.pattern
    return keywords


def fixed_width_range(low: str, high: str) -> str:
    """A regex for the digit strings of len(low) == len(high) characters between low and high."""
    if len(low) != len(high) or low > high:
        raise ValueError(f"not a range of one width: {low}..{high}")
    if low == high:
        return low
    if len(low) == 1:
        return f"[{low}-{high}]"
    rest = len(low) - 1
    if low[0] == high[0]:
        return low[0] + _group(fixed_width_range(low[1:], high[1:]))
    parts = []
    first, last = int(low[0]), int(high[0])
    if low[1:] == "0" * rest:  # the lower prefix's whole block
        first -= 1
    else:
        parts.append(low[0] + _group(fixed_width_range(low[1:], "9" * rest)))
    full_last = high[1:] == "9" * rest
    middle_end = last if full_last else last - 1
    if first + 1 <= middle_end:
        digits = str(first + 1) if first + 1 == middle_end else f"[{first + 1}-{middle_end}]"
        parts.append(digits + _digits(rest))
    if not full_last:
        parts.append(high[0] + _group(fixed_width_range("0" * rest, high[1:])))
    return "|".join(parts)


def _digits(count: int) -> str:
    return "[0-9]" if count == 1 else f"[0-9]{{{count}}}"


def _group(pattern: str) -> str:
    return f"(?:{pattern})" if "|" in pattern else pattern


def decimal_range(low: int, high: int) -> str:
    """A regex for the decimal numerals of low..high (0 <= low <= high) without leading zeros."""
    if not 0 <= low <= high:
        raise ValueError(f"not a range of naturals: {low}..{high}")
    parts = []
    for width in range(len(str(low)), len(str(high)) + 1):
        start = max(low, 10 ** (width - 1) if width > 1 else 0)
        end = min(high, 10**width - 1)
        if start <= end:
            parts.append(fixed_width_range(str(start), str(end)))
    return "|".join(parts)


def digits_at_most(high: int) -> str:
    """A regex for the digit strings of at most len(str(high)) characters (leading zeros
    allowed) whose value is at most `high`: what a width-bounded decimal parser accepts."""
    width = len(str(high))
    shorter = f"[0-9]{{1,{width - 1}}}|" if width > 1 else ""
    return f"^(?:{shorter}{fixed_width_range('0' * width, str(high))})$"


def _fractions(nonzero: bool, at_most: str | None) -> str:
    """A regex for 1 to 9 fraction digits; with `at_most` (9 digits), only those whose value is at
    most 0.<at_most>; with `nonzero`, only those with a digit other than 0."""
    if at_most is None and nonzero:  # by where the first digit other than 0 is
        return "|".join(
            ("0" * k) + f"[1-9][0-9]{{0,{8 - k}}}" if k < 8 else "0" * 8 + "[1-9]" for k in range(9)
        )
    if at_most == "0" * 9 and not nonzero:
        return "0{1,9}"
    parts = []
    for width in range(1, 10):
        low = "0" * (width - 1) + ("1" if nonzero else "0")
        high = at_most[:width] if at_most is not None else "9" * width
        if low <= high:
            parts.append(fixed_width_range(low, high))
    return "|".join(parts)


def duration_pattern(allow_zero: bool, most_nanos: int) -> str:
    """The proto3 JSON strings ("1.5s") of the Durations from 0 (or just above it) to
    `most_nanos`, in every spelling the JSON parser reads: leading zeros, 1 to 9 fraction digits,
    and "-0s" for zero."""
    whole, fraction = divmod(most_nanos, _NANOS)
    limit = f"{fraction:09d}"
    alternatives = []
    if allow_zero:
        alternatives.append("-?0+(?:\\.0{1,9})?")
    # Below one second: 0.<something not all zeros>, up to the limit when it is under a second.
    below_one = _fractions(nonzero=True, at_most=limit if whole == 0 else None)
    if below_one:
        alternatives.append(f"0+\\.(?:{below_one})")
    if whole >= 2:
        alternatives.append(f"0*(?:{decimal_range(1, whole - 1)})(?:\\.[0-9]{{1,9}})?")
    if whole >= 1:
        alternatives.append(f"0*{whole}(?:\\.(?:{_fractions(nonzero=False, at_most=limit)}))?")
    return f"^(?:{'|'.join(alternatives)})s$"
