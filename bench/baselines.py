"""The durable libraries users would otherwise pick, doing agentrt's benchmark work in-process.

The works (bench/compare.py's WORKS), each against what agentrt's tools do:
- `todo-list`: "add a todo, then list my todos", two steps on a SQLite todo list like agentrt's
  todo_store (a list answers at most 100 todos; the list is emptied every `--reset-every` adds,
  so it grows to that many between resets);
- `todo-count`: the same with a count instead of the listing (the same steps, a small output);
- `calc`: three chained additions (1+1, then +2, then +3), each step using the one before;
- `calc-12`: the same chain to twelve additions (+2 ... +12).

Systems:
- `dbos`: DBOS Transact, a workflow of those steps, its durable state in PostgreSQL;
- `langgraph-sqlite`: LangGraph, a graph of those nodes checkpointed by SqliteSaver after each;
- `langgraph-memory`: the same graphs with no checkpointer (not durable: the zero-durability
  reference).

One process per system, driven over stdin/stdout by bench/compare.py so that its CPU time and
resident memory are its own: each line in is `{"work": W, "runs": N, "concurrency": C}`, each
line out is `{"latencies": [...], "wall_s": ..., "cpu_s": ..., "rss_mb": ...}`.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypedDict

from procstat import memory_mb  # this script's folder: /proc figures, nothing else loaded

LIST_LIMIT = 100


class Todos:
    """A todo list in SQLite: one connection per thread, as a web app would hold them."""

    def __init__(self, path: Path, reset_every: int) -> None:
        self._path = path
        self._local = threading.local()
        self._reset_every = reset_every
        self._added = 0
        self._lock = threading.Lock()
        with sqlite3.connect(path) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE IF NOT EXISTS todos (id INTEGER PRIMARY KEY, text TEXT, done INTEGER)")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = sqlite3.connect(self._path, timeout=30)
            conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def add(self, text: str) -> dict[str, Any]:
        conn = self._conn()
        with self._lock:
            self._added += 1
            reset = self._added % self._reset_every == 0
        with conn:
            if reset:
                conn.execute("DELETE FROM todos")
            cursor = conn.execute("INSERT INTO todos (text, done) VALUES (?, 0)", (text,))
        return {"todo": {"id": cursor.lastrowid, "text": text, "done": False}}

    def list(self) -> dict[str, Any]:
        rows = self._conn().execute("SELECT id, text, done FROM todos ORDER BY id LIMIT ?", (LIST_LIMIT,))
        todos = [{"id": i, "text": t, "done": bool(d)} for i, t, d in rows]
        return {"todos": todos, "count": len(todos)}

    def count(self) -> dict[str, Any]:
        total, done = self._conn().execute("SELECT count(*), coalesce(sum(done), 0) FROM todos").fetchone()
        return {"count": total, "open": total - done, "done": done}


class State(TypedDict, total=False):
    value: Any


def steps_of(todos: Todos) -> dict[str, list[Callable[[Any], Any]]]:
    """Each work's steps: functions of the previous step's output."""
    return {
        "todo-list": [lambda _: todos.add("buy milk"), lambda _: todos.list()],
        "todo-count": [lambda _: todos.add("buy milk"), lambda _: todos.count()],
        "calc": [lambda _: 1 + 1, lambda previous: previous + 2, lambda previous: previous + 3],
        "calc-12": [lambda _: 1 + 1, *(lambda previous, k=k: previous + k for k in range(2, 13))],
    }


def langgraph_runners(todos: Todos, durable: bool, folder: Path) -> dict[str, Callable[[], Any]]:
    from langgraph.graph import END, START, StateGraph  # noqa: PLC0415

    checkpointer = None
    if durable:
        from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: PLC0415

        conn = sqlite3.connect(folder / "checkpoints.db", check_same_thread=False)
        checkpointer = SqliteSaver(conn)
        checkpointer.setup()

    def runner(steps: list[Callable[[Any], Any]]) -> Callable[[], Any]:
        graph = StateGraph(State)
        previous = START
        for number, step in enumerate(steps, start=1):
            graph.add_node(f"s{number}", lambda state, step=step: {"value": step(state.get("value"))})
            graph.add_edge(previous, f"s{number}")
            previous = f"s{number}"
        graph.add_edge(previous, END)
        app = graph.compile(checkpointer=checkpointer)
        return lambda: app.invoke({}, {"configurable": {"thread_id": uuid.uuid4().hex}})

    return {work: runner(steps) for work, steps in steps_of(todos).items()}


def dbos_runners(todos: Todos, database_url: str) -> dict[str, Callable[[], Any]]:
    from dbos import DBOS, DBOSConfig  # noqa: PLC0415

    config: DBOSConfig = {
        "name": "agentrt-bench",
        "system_database_url": database_url,
        "sys_db_pool_size": 60,
        "log_level": "WARNING",
    }
    DBOS(config=config)
    # Every measurement starts from an empty system database: workflow history from earlier
    # runs of the benchmark would make DBOS slower than it is for a new user.
    DBOS.reset_system_database()

    def workflow(work: str, steps: list[Callable[[Any], Any]]) -> Callable[[], Any]:
        durable_steps = [
            DBOS.step(name=f"{work}-s{number}")(step) for number, step in enumerate(steps, start=1)
        ]

        @DBOS.workflow(name=work)
        def run() -> Any:
            value = None
            for step in durable_steps:
                value = step(value)
            return value

        return run

    runners = {work: workflow(work, steps) for work, steps in steps_of(todos).items()}
    DBOS.launch()
    return runners


def rss_mb() -> float:
    return memory_mb("self", "Rss")


def pss_mb() -> float:
    return memory_mb("self", "Pss")


def batch(run: Callable[[], Any], pool: ThreadPoolExecutor, runs: int, concurrency: int) -> dict[str, Any]:
    latencies: list[float] = []
    lock = threading.Lock()
    remaining = iter(range(runs))

    def worker() -> None:
        for _ in remaining:
            start = time.perf_counter()
            run()
            took = time.perf_counter() - start
            with lock:
                latencies.append(took)

    cpu, begin = time.process_time(), time.perf_counter()
    for future in [pool.submit(worker) for _ in range(concurrency)]:
        future.result()
    return {
        "latencies": latencies,
        "wall_s": time.perf_counter() - begin,
        "cpu_s": time.process_time() - cpu,
        "rss_mb": rss_mb(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("system", choices=["dbos", "langgraph-sqlite", "langgraph-memory"])
    parser.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/agentrt_bench_dbos")
    parser.add_argument("--reset-every", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        todos = Todos(folder / "todos.db", args.reset_every)
        if args.system == "dbos":
            runners = dbos_runners(todos, args.database_url)
        else:
            runners = langgraph_runners(todos, args.system == "langgraph-sqlite", folder)
        for run in runners.values():
            run()  # warm up
        with ThreadPoolExecutor(max_workers=64) as pool:
            print(json.dumps({"ready": True, "rss_mb": rss_mb(), "pss_mb": pss_mb()}), flush=True)
            for line in sys.stdin:
                request = json.loads(line)
                run = runners[request["work"]]
                print(json.dumps(batch(run, pool, request["runs"], request["concurrency"])), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
