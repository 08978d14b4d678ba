"""The run kernel: what happens to a run, from CreateRun's stored PENDING run to its end.

Read it top down:
- driver.py: one run's life: its work by mode, its deadline, how it ended, how it stops;
- planrun.py (a plan's DAG, replans, the answer) and agentloop.py (decide, call, observe);
- steps.py: one step's call: approval, attempts, retries, timeouts, output limits;
- outcomes.py: how each of those ends, as a value; failures.py: every error it records;
- transitions.py: each change to a run and the events it emits (no I/O), checked against
  machine.py's table (state x event -> state), which docs/DESIGN.md prints;
- recorder.py: saving transitions, which saves are awaited and which pipelined, and why;
- planning.py (asking the planner), approvals.py (who must approve a call), retry.py (policy).

The engine (../engine.py) creates, cancels, retries and hands out runs; it is not part of a
run's life and the kernel never calls it.
"""
