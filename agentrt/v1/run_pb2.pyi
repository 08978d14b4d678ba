import datetime

from agentrt.v1 import agent_pb2 as _agent_pb2
from agentrt.v1 import field_rules_pb2 as _field_rules_pb2
from agentrt.v1 import plan_pb2 as _plan_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_STATUS_UNSPECIFIED: _ClassVar[RunStatus]
    RUN_STATUS_PENDING: _ClassVar[RunStatus]
    RUN_STATUS_PLANNING: _ClassVar[RunStatus]
    RUN_STATUS_RUNNING: _ClassVar[RunStatus]
    RUN_STATUS_SUCCEEDED: _ClassVar[RunStatus]
    RUN_STATUS_FAILED: _ClassVar[RunStatus]
    RUN_STATUS_CANCELLED: _ClassVar[RunStatus]
    RUN_STATUS_WAITING: _ClassVar[RunStatus]
    RUN_STATUS_QUEUED: _ClassVar[RunStatus]

class MultitaskStrategy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MULTITASK_STRATEGY_UNSPECIFIED: _ClassVar[MultitaskStrategy]
    MULTITASK_STRATEGY_REJECT: _ClassVar[MultitaskStrategy]
    MULTITASK_STRATEGY_ENQUEUE: _ClassVar[MultitaskStrategy]
    MULTITASK_STRATEGY_INTERRUPT: _ClassVar[MultitaskStrategy]

class ApprovalPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    APPROVAL_POLICY_UNSPECIFIED: _ClassVar[ApprovalPolicy]
    APPROVAL_POLICY_NEVER: _ClassVar[ApprovalPolicy]
    APPROVAL_POLICY_DESTRUCTIVE: _ClassVar[ApprovalPolicy]
    APPROVAL_POLICY_WRITES: _ClassVar[ApprovalPolicy]
    APPROVAL_POLICY_ALWAYS: _ClassVar[ApprovalPolicy]

class ApprovalDecision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    APPROVAL_DECISION_UNSPECIFIED: _ClassVar[ApprovalDecision]
    APPROVAL_DECISION_APPROVED: _ClassVar[ApprovalDecision]
    APPROVAL_DECISION_REJECTED: _ClassVar[ApprovalDecision]
    APPROVAL_DECISION_TIMED_OUT: _ClassVar[ApprovalDecision]

class StepStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STEP_STATUS_UNSPECIFIED: _ClassVar[StepStatus]
    STEP_STATUS_PENDING: _ClassVar[StepStatus]
    STEP_STATUS_RUNNING: _ClassVar[StepStatus]
    STEP_STATUS_SUCCEEDED: _ClassVar[StepStatus]
    STEP_STATUS_FAILED: _ClassVar[StepStatus]
    STEP_STATUS_SKIPPED: _ClassVar[StepStatus]
    STEP_STATUS_CANCELLED: _ClassVar[StepStatus]
    STEP_STATUS_RETRYING: _ClassVar[StepStatus]
    STEP_STATUS_AWAITING_APPROVAL: _ClassVar[StepStatus]
RUN_STATUS_UNSPECIFIED: RunStatus
RUN_STATUS_PENDING: RunStatus
RUN_STATUS_PLANNING: RunStatus
RUN_STATUS_RUNNING: RunStatus
RUN_STATUS_SUCCEEDED: RunStatus
RUN_STATUS_FAILED: RunStatus
RUN_STATUS_CANCELLED: RunStatus
RUN_STATUS_WAITING: RunStatus
RUN_STATUS_QUEUED: RunStatus
MULTITASK_STRATEGY_UNSPECIFIED: MultitaskStrategy
MULTITASK_STRATEGY_REJECT: MultitaskStrategy
MULTITASK_STRATEGY_ENQUEUE: MultitaskStrategy
MULTITASK_STRATEGY_INTERRUPT: MultitaskStrategy
APPROVAL_POLICY_UNSPECIFIED: ApprovalPolicy
APPROVAL_POLICY_NEVER: ApprovalPolicy
APPROVAL_POLICY_DESTRUCTIVE: ApprovalPolicy
APPROVAL_POLICY_WRITES: ApprovalPolicy
APPROVAL_POLICY_ALWAYS: ApprovalPolicy
APPROVAL_DECISION_UNSPECIFIED: ApprovalDecision
APPROVAL_DECISION_APPROVED: ApprovalDecision
APPROVAL_DECISION_REJECTED: ApprovalDecision
APPROVAL_DECISION_TIMED_OUT: ApprovalDecision
STEP_STATUS_UNSPECIFIED: StepStatus
STEP_STATUS_PENDING: StepStatus
STEP_STATUS_RUNNING: StepStatus
STEP_STATUS_SUCCEEDED: StepStatus
STEP_STATUS_FAILED: StepStatus
STEP_STATUS_SKIPPED: StepStatus
STEP_STATUS_CANCELLED: StepStatus
STEP_STATUS_RETRYING: StepStatus
STEP_STATUS_AWAITING_APPROVAL: StepStatus

class Approval(_message.Message):
    __slots__ = ("reason", "request_time", "deadline", "decision", "decided_by", "comment", "decision_time", "edited")
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_TIME_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    DECIDED_BY_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    DECISION_TIME_FIELD_NUMBER: _ClassVar[int]
    EDITED_FIELD_NUMBER: _ClassVar[int]
    reason: str
    request_time: _timestamp_pb2.Timestamp
    deadline: _timestamp_pb2.Timestamp
    decision: ApprovalDecision
    decided_by: str
    comment: str
    decision_time: _timestamp_pb2.Timestamp
    edited: bool
    def __init__(self, reason: _Optional[str] = ..., request_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., decision: _Optional[_Union[ApprovalDecision, str]] = ..., decided_by: _Optional[str] = ..., comment: _Optional[str] = ..., decision_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., edited: _Optional[bool] = ...) -> None: ...

class RetryPolicy(_message.Message):
    __slots__ = ("max_attempts", "base_delay", "max_delay", "step_timeout")
    MAX_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    BASE_DELAY_FIELD_NUMBER: _ClassVar[int]
    MAX_DELAY_FIELD_NUMBER: _ClassVar[int]
    STEP_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    max_attempts: int
    base_delay: _duration_pb2.Duration
    max_delay: _duration_pb2.Duration
    step_timeout: _duration_pb2.Duration
    def __init__(self, max_attempts: _Optional[int] = ..., base_delay: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., max_delay: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., step_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class RunError(_message.Message):
    __slots__ = ("code", "reason", "message", "step_id", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    code: str
    reason: str
    message: str
    step_id: str
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, code: _Optional[str] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., step_id: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class StepState(_message.Message):
    __slots__ = ("step_id", "tool", "arguments", "depends_on", "status", "attempts", "output", "error", "start_time", "end_time", "retry_delay", "next_attempt_time", "approval")
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    DEPENDS_ON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    RETRY_DELAY_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_TIME_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    step_id: str
    tool: str
    arguments: _struct_pb2.Struct
    depends_on: _containers.RepeatedScalarFieldContainer[str]
    status: StepStatus
    attempts: int
    output: _struct_pb2.Value
    error: RunError
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    retry_delay: _duration_pb2.Duration
    next_attempt_time: _timestamp_pb2.Timestamp
    approval: Approval
    def __init__(self, step_id: _Optional[str] = ..., tool: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., depends_on: _Optional[_Iterable[str]] = ..., status: _Optional[_Union[StepStatus, str]] = ..., attempts: _Optional[int] = ..., output: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., error: _Optional[_Union[RunError, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., retry_delay: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., next_attempt_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., approval: _Optional[_Union[Approval, _Mapping]] = ...) -> None: ...

class Run(_message.Message):
    __slots__ = ("run_id", "prompt", "status", "plan", "steps", "result", "error", "max_steps", "idempotency_key", "last_seq", "create_time", "update_time", "start_time", "end_time", "deadline", "retry_policy", "retry_count", "usage", "replan_count", "answer", "mode", "budgets", "turns", "budget_start_turn", "approval_policy", "approval_timeout", "owner", "trace_id", "thread_id", "thread_turn")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    RETRY_POLICY_FIELD_NUMBER: _ClassVar[int]
    RETRY_COUNT_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    REPLAN_COUNT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    BUDGETS_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    BUDGET_START_TURN_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_POLICY_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_TURN_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    prompt: str
    status: RunStatus
    plan: _plan_pb2.Plan
    steps: _containers.RepeatedCompositeFieldContainer[StepState]
    result: _struct_pb2.Value
    error: RunError
    max_steps: int
    idempotency_key: str
    last_seq: int
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    deadline: _timestamp_pb2.Timestamp
    retry_policy: RetryPolicy
    retry_count: int
    usage: _plan_pb2.Usage
    replan_count: int
    answer: str
    mode: _agent_pb2.RunMode
    budgets: _agent_pb2.Budgets
    turns: _containers.RepeatedCompositeFieldContainer[_agent_pb2.Turn]
    budget_start_turn: int
    approval_policy: ApprovalPolicy
    approval_timeout: _duration_pb2.Duration
    owner: str
    trace_id: str
    thread_id: str
    thread_turn: int
    def __init__(self, run_id: _Optional[str] = ..., prompt: _Optional[str] = ..., status: _Optional[_Union[RunStatus, str]] = ..., plan: _Optional[_Union[_plan_pb2.Plan, _Mapping]] = ..., steps: _Optional[_Iterable[_Union[StepState, _Mapping]]] = ..., result: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., error: _Optional[_Union[RunError, _Mapping]] = ..., max_steps: _Optional[int] = ..., idempotency_key: _Optional[str] = ..., last_seq: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., retry_policy: _Optional[_Union[RetryPolicy, _Mapping]] = ..., retry_count: _Optional[int] = ..., usage: _Optional[_Union[_plan_pb2.Usage, _Mapping]] = ..., replan_count: _Optional[int] = ..., answer: _Optional[str] = ..., mode: _Optional[_Union[_agent_pb2.RunMode, str]] = ..., budgets: _Optional[_Union[_agent_pb2.Budgets, _Mapping]] = ..., turns: _Optional[_Iterable[_Union[_agent_pb2.Turn, _Mapping]]] = ..., budget_start_turn: _Optional[int] = ..., approval_policy: _Optional[_Union[ApprovalPolicy, str]] = ..., approval_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., owner: _Optional[str] = ..., trace_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., thread_turn: _Optional[int] = ...) -> None: ...

class Thread(_message.Message):
    __slots__ = ("thread_id", "owner", "metadata", "create_time", "update_time", "turns", "turn_count", "active_run_id")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    TURN_COUNT_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_RUN_ID_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    owner: str
    metadata: _containers.ScalarMap[str, str]
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    turns: _containers.RepeatedCompositeFieldContainer[ThreadTurn]
    turn_count: int
    active_run_id: str
    def __init__(self, thread_id: _Optional[str] = ..., owner: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., turns: _Optional[_Iterable[_Union[ThreadTurn, _Mapping]]] = ..., turn_count: _Optional[int] = ..., active_run_id: _Optional[str] = ...) -> None: ...

class ThreadTurn(_message.Message):
    __slots__ = ("run_id", "turn", "prompt", "answer", "status", "create_time", "error")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    turn: int
    prompt: str
    answer: str
    status: RunStatus
    create_time: _timestamp_pb2.Timestamp
    error: RunError
    def __init__(self, run_id: _Optional[str] = ..., turn: _Optional[int] = ..., prompt: _Optional[str] = ..., answer: _Optional[str] = ..., status: _Optional[_Union[RunStatus, str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., error: _Optional[_Union[RunError, _Mapping]] = ...) -> None: ...

class RunEvent(_message.Message):
    __slots__ = ("run_id", "seq", "time", "status_changed", "plan_created", "step_updated", "turn_decided", "text_delta", "planner_retry", "heartbeat", "step_progress", "transient")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    STATUS_CHANGED_FIELD_NUMBER: _ClassVar[int]
    PLAN_CREATED_FIELD_NUMBER: _ClassVar[int]
    STEP_UPDATED_FIELD_NUMBER: _ClassVar[int]
    TURN_DECIDED_FIELD_NUMBER: _ClassVar[int]
    TEXT_DELTA_FIELD_NUMBER: _ClassVar[int]
    PLANNER_RETRY_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    STEP_PROGRESS_FIELD_NUMBER: _ClassVar[int]
    TRANSIENT_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    seq: int
    time: _timestamp_pb2.Timestamp
    status_changed: RunStatusChanged
    plan_created: PlanCreated
    step_updated: StepUpdated
    turn_decided: TurnDecided
    text_delta: TextDelta
    planner_retry: PlannerRetry
    heartbeat: Heartbeat
    step_progress: StepProgress
    transient: bool
    def __init__(self, run_id: _Optional[str] = ..., seq: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status_changed: _Optional[_Union[RunStatusChanged, _Mapping]] = ..., plan_created: _Optional[_Union[PlanCreated, _Mapping]] = ..., step_updated: _Optional[_Union[StepUpdated, _Mapping]] = ..., turn_decided: _Optional[_Union[TurnDecided, _Mapping]] = ..., text_delta: _Optional[_Union[TextDelta, _Mapping]] = ..., planner_retry: _Optional[_Union[PlannerRetry, _Mapping]] = ..., heartbeat: _Optional[_Union[Heartbeat, _Mapping]] = ..., step_progress: _Optional[_Union[StepProgress, _Mapping]] = ..., transient: _Optional[bool] = ...) -> None: ...

class PlannerRetry(_message.Message):
    __slots__ = ("activity", "attempt", "max_attempts", "delay", "error")
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    MAX_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    DELAY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    activity: str
    attempt: int
    max_attempts: int
    delay: _duration_pb2.Duration
    error: RunError
    def __init__(self, activity: _Optional[str] = ..., attempt: _Optional[int] = ..., max_attempts: _Optional[int] = ..., delay: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., error: _Optional[_Union[RunError, _Mapping]] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("activity", "elapsed")
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    activity: str
    elapsed: _duration_pb2.Duration
    def __init__(self, activity: _Optional[str] = ..., elapsed: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class StepProgress(_message.Message):
    __slots__ = ("step_id", "message")
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    step_id: str
    message: str
    def __init__(self, step_id: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class TurnDecided(_message.Message):
    __slots__ = ("turn",)
    TURN_FIELD_NUMBER: _ClassVar[int]
    turn: _agent_pb2.Turn
    def __init__(self, turn: _Optional[_Union[_agent_pb2.Turn, _Mapping]] = ...) -> None: ...

class TextDelta(_message.Message):
    __slots__ = ("turn", "text")
    TURN_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    turn: int
    text: str
    def __init__(self, turn: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class RunStatusChanged(_message.Message):
    __slots__ = ("status", "error", "result", "answer")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    status: RunStatus
    error: RunError
    result: _struct_pb2.Value
    answer: str
    def __init__(self, status: _Optional[_Union[RunStatus, str]] = ..., error: _Optional[_Union[RunError, _Mapping]] = ..., result: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., answer: _Optional[str] = ...) -> None: ...

class PlanCreated(_message.Message):
    __slots__ = ("plan", "replan", "reason")
    PLAN_FIELD_NUMBER: _ClassVar[int]
    REPLAN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    plan: _plan_pb2.Plan
    replan: bool
    reason: str
    def __init__(self, plan: _Optional[_Union[_plan_pb2.Plan, _Mapping]] = ..., replan: _Optional[bool] = ..., reason: _Optional[str] = ...) -> None: ...

class StepUpdated(_message.Message):
    __slots__ = ("step",)
    STEP_FIELD_NUMBER: _ClassVar[int]
    step: StepState
    def __init__(self, step: _Optional[_Union[StepState, _Mapping]] = ...) -> None: ...

class CreateRunRequest(_message.Message):
    __slots__ = ("prompt", "max_steps", "idempotency_key", "retry_policy", "timeout", "mode", "budgets", "approval_policy", "approval_timeout", "thread_id", "multitask_strategy")
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    RETRY_POLICY_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    BUDGETS_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_POLICY_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    MULTITASK_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    prompt: str
    max_steps: int
    idempotency_key: str
    retry_policy: RetryPolicy
    timeout: _duration_pb2.Duration
    mode: _agent_pb2.RunMode
    budgets: _agent_pb2.Budgets
    approval_policy: ApprovalPolicy
    approval_timeout: _duration_pb2.Duration
    thread_id: str
    multitask_strategy: MultitaskStrategy
    def __init__(self, prompt: _Optional[str] = ..., max_steps: _Optional[int] = ..., idempotency_key: _Optional[str] = ..., retry_policy: _Optional[_Union[RetryPolicy, _Mapping]] = ..., timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., mode: _Optional[_Union[_agent_pb2.RunMode, str]] = ..., budgets: _Optional[_Union[_agent_pb2.Budgets, _Mapping]] = ..., approval_policy: _Optional[_Union[ApprovalPolicy, str]] = ..., approval_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., thread_id: _Optional[str] = ..., multitask_strategy: _Optional[_Union[MultitaskStrategy, str]] = ...) -> None: ...

class CreateRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: Run
    def __init__(self, run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class GetRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class GetRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: Run
    def __init__(self, run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "status", "owner")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    status: RunStatus
    owner: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., status: _Optional[_Union[RunStatus, str]] = ..., owner: _Optional[str] = ...) -> None: ...

class ListRunsResponse(_message.Message):
    __slots__ = ("runs", "next_page_token")
    RUNS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[Run]
    next_page_token: str
    def __init__(self, runs: _Optional[_Iterable[_Union[Run, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CancelRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class CancelRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: Run
    def __init__(self, run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class RetryRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class RetryRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: Run
    def __init__(self, run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class WatchRunRequest(_message.Message):
    __slots__ = ("run_id", "after_seq")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    after_seq: int
    def __init__(self, run_id: _Optional[str] = ..., after_seq: _Optional[int] = ...) -> None: ...

class WatchRunResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: RunEvent
    def __init__(self, event: _Optional[_Union[RunEvent, _Mapping]] = ...) -> None: ...

class ApproveStepRequest(_message.Message):
    __slots__ = ("run_id", "step_id", "arguments")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    step_id: str
    arguments: _struct_pb2.Struct
    def __init__(self, run_id: _Optional[str] = ..., step_id: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ApproveStepResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: Run
    def __init__(self, run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class RejectStepRequest(_message.Message):
    __slots__ = ("run_id", "step_id", "reason")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    step_id: str
    reason: str
    def __init__(self, run_id: _Optional[str] = ..., step_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RejectStepResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: Run
    def __init__(self, run: _Optional[_Union[Run, _Mapping]] = ...) -> None: ...

class CreateThreadRequest(_message.Message):
    __slots__ = ("metadata",)
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    METADATA_FIELD_NUMBER: _ClassVar[int]
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class CreateThreadResponse(_message.Message):
    __slots__ = ("thread",)
    THREAD_FIELD_NUMBER: _ClassVar[int]
    thread: Thread
    def __init__(self, thread: _Optional[_Union[Thread, _Mapping]] = ...) -> None: ...

class GetThreadRequest(_message.Message):
    __slots__ = ("thread_id", "page_size", "page_token")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    page_size: int
    page_token: str
    def __init__(self, thread_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetThreadResponse(_message.Message):
    __slots__ = ("thread", "next_page_token")
    THREAD_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    thread: Thread
    next_page_token: str
    def __init__(self, thread: _Optional[_Union[Thread, _Mapping]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListThreadsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListThreadsResponse(_message.Message):
    __slots__ = ("threads", "next_page_token")
    THREADS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    threads: _containers.RepeatedCompositeFieldContainer[Thread]
    next_page_token: str
    def __init__(self, threads: _Optional[_Iterable[_Union[Thread, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class DeleteThreadRequest(_message.Message):
    __slots__ = ("thread_id",)
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    def __init__(self, thread_id: _Optional[str] = ...) -> None: ...

class DeleteThreadResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
