"""One error root for agentrt, mapped to gRPC status with google.rpc details, and back.

Servicers raise AgentrtError subclasses; every agentrt server (agentrt.server.grpcserver) turns them
into a gRPC status whose details carry google.rpc.ErrorInfo (reason, retryable) and, for bad
input, google.rpc.BadRequest.
Clients read them back with `ErrorDetails.from_rpc_error`, so the retryable flag set by a tool
survives every hop to the executor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from agentrt.core.text import clip, outgoing
from agentrt.v1 import plan_pb2

DOMAIN = "agentrt.dev"
# With MAX_MESSAGE_BYTES for the message, a status stays far below gRPC's 8 KiB metadata limit
# even when every byte is percent-encoded in grpc-message and base64 in the details.
MAX_VIOLATIONS = 8
MAX_FIELD_BYTES = 100
MAX_VIOLATION_BYTES = 160


class AgentrtError(Exception):
    """Base error: a gRPC status code, a machine-readable reason and a retryable flag."""

    code: grpc.StatusCode = grpc.StatusCode.INTERNAL
    reason: str = "INTERNAL"
    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        retryable: bool | None = None,
        code: grpc.StatusCode | None = None,
        violations: list[tuple[str, str]] | None = None,
        metadata: dict[str, str] | None = None,
        retry_after_s: float | None = None,
        usage: plan_pb2.Usage | None = None,
    ) -> None:
        # Bounded and redacted here, once for every error an agentrt server returns: see text.py.
        message = outgoing(message)
        super().__init__(message)
        self.message = message
        if reason is not None:
            self.reason = reason
        if retryable is not None:
            self.retryable = retryable
        if code is not None:
            self.code = code
        self.violations = [
            (clip(f, MAX_FIELD_BYTES), outgoing(d, MAX_VIOLATION_BYTES))
            for f, d in (violations or [])[:MAX_VIOLATIONS]
        ]
        self.metadata = {k: outgoing(v, MAX_FIELD_BYTES) for k, v in (metadata or {}).items()}
        self.retry_after_s = retry_after_s
        # What the failed work spent (LLM tokens, cost): a typed detail, so the caller adds it
        # to its own accounts as numbers (a failed plan or decision still costs its run).
        self.usage = usage if usage is not None and usage.llm_calls else None

    def to_status(self) -> grpc.Status:
        return rpc_status.to_status(self.rpc_status())

    def rpc_status(self) -> status_pb2.Status:
        """This error as a google.rpc.Status: code, message and details."""
        info = error_details_pb2.ErrorInfo(
            reason=self.reason,
            domain=DOMAIN,
            metadata={**self.metadata, "retryable": "true" if self.retryable else "false"},
        )
        details = [_pack(info)]
        if self.violations:
            details.append(
                _pack(
                    error_details_pb2.BadRequest(
                        field_violations=[
                            error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
                            for f, d in self.violations
                        ]
                    )
                )
            )
        if self.retry_after_s is not None:
            retry = error_details_pb2.RetryInfo()
            retry.retry_delay.FromNanoseconds(round(self.retry_after_s * 1e9))
            details.append(_pack(retry))
        if self.usage is not None:
            details.append(_pack(self.usage))
        return status_pb2.Status(code=self.code.value[0], message=self.message, details=details)


class Relayed(AgentrtError):
    """Another agentrt service's error, passed on as it came: its code, message and every
    google.rpc detail (ErrorInfo, BadRequest, RetryInfo, ...) unchanged. For our own services
    only: a provider's error is rebuilt from what we understand of it (ErrorDetails.to_error)."""

    def __init__(self, err: grpc.RpcError) -> None:
        status = status_of(err)
        details = ErrorDetails.from_status(err.code(), status)  # type: ignore[attr-defined]
        super().__init__(
            status.message, code=details.code, reason=details.reason, retryable=details.retryable
        )
        self.status = status
        self.metadata = details.metadata  # for a reader of this side (the run an idempotency key made)

    def rpc_status(self) -> status_pb2.Status:
        return self.status


class InvalidArgument(AgentrtError):
    code = grpc.StatusCode.INVALID_ARGUMENT
    reason = "INVALID_ARGUMENT"


class NotFound(AgentrtError):
    code = grpc.StatusCode.NOT_FOUND
    reason = "NOT_FOUND"


class AlreadyExists(AgentrtError):
    code = grpc.StatusCode.ALREADY_EXISTS
    reason = "ALREADY_EXISTS"


class FailedPrecondition(AgentrtError):
    code = grpc.StatusCode.FAILED_PRECONDITION
    reason = "FAILED_PRECONDITION"


class PermissionDenied(AgentrtError):
    code = grpc.StatusCode.PERMISSION_DENIED
    reason = "PERMISSION_DENIED"


class Unauthenticated(AgentrtError):
    code = grpc.StatusCode.UNAUTHENTICATED
    reason = "UNAUTHENTICATED"


class ResourceExhausted(AgentrtError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    reason = "RESOURCE_EXHAUSTED"
    retryable = True


class Unavailable(AgentrtError):
    code = grpc.StatusCode.UNAVAILABLE
    reason = "UNAVAILABLE"
    retryable = True


class ToolError(AgentrtError):
    """A tool ran and failed on its own terms (division by zero, unknown todo id, ...)."""

    code = grpc.StatusCode.INVALID_ARGUMENT
    reason = "TOOL_ERROR"


def _pack(message: object) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)  # type: ignore[arg-type]
    return packed


# Codes whose failures are transient by nature; anything else is retryable only if flagged.
RETRYABLE_CODES = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.RESOURCE_EXHAUSTED}
)


@dataclass
class ErrorDetails:
    """What a client learns from a failed RPC."""

    code: grpc.StatusCode
    message: str
    reason: str = ""
    retryable: bool = False
    metadata: dict[str, str] = field(default_factory=dict)
    violations: list[tuple[str, str]] = field(default_factory=list)
    usage: plan_pb2.Usage | None = None  # what the failed work spent (an agentrt service's)
    # Whether a server said why (google.rpc details came): False for gRPC's own errors, such as
    # the UNAVAILABLE of a channel that found nothing listening.
    explained: bool = False

    @classmethod
    def from_rpc_error(cls, err: grpc.RpcError) -> ErrorDetails:
        return cls.from_status(err.code(), status_of(err))  # type: ignore[attr-defined]

    @classmethod
    def from_status(cls, code: grpc.StatusCode, status: status_pb2.Status) -> ErrorDetails:
        out = cls(code=code, message=status.message, reason=code.name, retryable=code in RETRYABLE_CODES)
        out.explained = bool(status.details)
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                out.reason = info.reason
                out.metadata = {k: v for k, v in info.metadata.items() if k != "retryable"}
                if "retryable" in info.metadata:
                    out.retryable = info.metadata["retryable"] == "true"
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                out.violations = [(v.field, v.description) for v in bad.field_violations]
            elif detail.Is(plan_pb2.Usage.DESCRIPTOR):
                out.usage = plan_pb2.Usage()
                detail.Unpack(out.usage)
        return out

    def to_error(self) -> AgentrtError:
        """Re-raise a failure reported to this hop with what we understood of it (code, reason,
        retryable, violations, metadata), bounded again: for errors from outside agentrt."""
        return AgentrtError(
            self.message,
            code=self.code,
            reason=self.reason,
            retryable=self.retryable,
            violations=self.violations,
            metadata=self.metadata,
        )


def status_of(err: grpc.RpcError) -> status_pb2.Status:
    """A failed call's google.rpc.Status: from its status details when the server sent them
    (grpcio-status reads them), else just its code and message."""
    try:
        status = rpc_status.from_call(err)  # type: ignore[arg-type]
    except ValueError:  # details that contradict the call's own code or message
        status = None
    if status is None:
        code: grpc.StatusCode = err.code()  # type: ignore[attr-defined]
        status = status_pb2.Status(code=code.value[0], message=err.details() or "")  # type: ignore[attr-defined]
    return status
