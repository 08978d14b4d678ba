"""What the model reads of an agent run: the transcript's forms and bounds, and the answer
picked out of a streaming JSON decision."""

from __future__ import annotations

import json

from agentrt.core.values import dict_to_struct, py_to_value
from agentrt.v1 import agent_pb2, run_pb2
from planner_svc.agent import AnswerPeek
from planner_svc.transcript import Transcript

R = run_pb2


def turn(index: int, *calls: tuple[str, dict]) -> agent_pb2.Turn:
    return agent_pb2.Turn(
        index=index,
        calls=[
            agent_pb2.ToolCall(step_id=f"t{index}-{n}", tool=tool, arguments=dict_to_struct(args))
            for n, (tool, args) in enumerate(calls, start=1)
        ],
    )


def succeeded(step_id: str, output: object) -> run_pb2.StepState:
    return run_pb2.StepState(step_id=step_id, status=R.STEP_STATUS_SUCCEEDED, output=py_to_value(output))


def test_function_calling_form_pairs_each_call_with_its_result() -> None:
    turns = [turn(1, ("calculator", {"expression": "1/0"}), ("todo_store", {"action": "list"}))]
    steps = [
        run_pb2.StepState(
            step_id="t1-1",
            status=R.STEP_STATUS_FAILED,
            error=run_pb2.RunError(reason="DIVISION_BY_ZERO", message="division by zero"),
        ),
        succeeded("t1-2", {"todos": [], "count": 0}),
    ]
    messages = Transcript(turns, steps, 1000, 10_000).messages(use_tools=True)
    assistant, first, second = messages
    assert [c["id"] for c in assistant["tool_calls"]] == ["t1-1", "t1-2"]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"expression": "1/0"}
    assert first == {
        "role": "tool",
        "tool_call_id": "t1-1",
        "content": "error (DIVISION_BY_ZERO): division by zero",
    }
    assert second["content"] == '{"count":0,"todos":[]}'  # keys sorted: the same bytes every time


def test_json_form_for_servers_without_function_calling() -> None:
    turns = [turn(1, ("calculator", {"expression": "2+2"}))]
    messages = Transcript(turns, [succeeded("t1-1", {"value": 4})], 1000, 10_000).messages(use_tools=False)
    assert json.loads(messages[0]["content"]) == {
        "tool_calls": [{"tool": "calculator", "arguments": {"expression": "2+2"}}]
    }
    assert messages[1]["content"].startswith('Tool results:\n- t1-1 calculator: {"value":4}\nDo not repeat')


def test_a_long_output_is_trimmed_and_the_model_is_told() -> None:
    big = {"todos": [{"id": i, "text": f"todo number {i}"} for i in range(500)]}
    messages = Transcript([turn(1, ("todo_store", {}))], [succeeded("t1-1", big)], 300, 10_000).messages(True)
    content = messages[-1]["content"]
    full = len(json.dumps(big, separators=(",", ":")))
    assert content.startswith('{"todos":[{"id":0,')
    assert f"[trimmed: {full - 300} more characters not shown]" in content
    assert len(content) < 400


def test_over_the_total_the_oldest_outputs_are_omitted_first() -> None:
    turns = [turn(i, ("calculator", {"expression": str(i)})) for i in range(1, 6)]
    steps = [succeeded(f"t{i}-1", {"value": i, "padding": "x" * 200}) for i in range(1, 6)]
    messages = Transcript(turns, steps, 1000, 700).messages(use_tools=True)
    results = [m["content"] for m in messages if m["role"] == "tool"]
    kept = [r for r in results if not r.startswith("[output omitted")]
    assert len(kept) == 3 and results[-3:] == kept  # the newest three fit
    assert all("call the tool again if needed" in r for r in results[:2])


def test_a_turn_that_ended_the_run_is_followed_by_a_request_to_go_on() -> None:
    """After RetryRun of a refused run the model sees its refusal and is asked again."""
    messages = Transcript([agent_pb2.Turn(index=1, refusal="no tool")], [], 1000, 10_000).messages(True)
    assert messages == [
        {"role": "assistant", "content": "no tool"},
        {"role": "user", "content": "Please try again and continue with the task."},
    ]


def test_the_answer_of_a_json_decision_streams_as_words() -> None:
    peek = AnswerPeek()
    text = json.dumps({"answer": 'You have 3 todos: "a",\nb and c \u00e9.'})
    pieces = [peek.feed(text[i : i + 3]) for i in range(0, len(text), 3)]
    assert "".join(pieces) == 'You have 3 todos: "a",\nb and c \u00e9.'
    assert peek.done
    calls = AnswerPeek()
    assert calls.feed('{"tool_calls": [{"tool": "calculator", "arguments": {"expression": "1"}}]}') == ""
