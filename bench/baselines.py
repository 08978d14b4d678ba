"""The durable libraries users would otherwise pick, doing agentrt's benchmark work in-process.

The work is the issue's: "add a todo, then list my todos", two steps, each against a SQLite todo
list like agentrt's todo_store (a list answers at most 100 todos; the list is emptied every
`--reset-every` runs so it grows to that many between resets).

- `dbos`: DBOS Transact, a workflow of two steps, its durable state in PostgreSQL;
- `langgraph-sqlite`: LangGraph, a two-node graph checkpointed by SqliteSaver after every step;
- `langgraph-memory`: the same graph with no checkpointer (not durable: the zero-durability
  reference).

One process per system, driven over stdin/stdout by bench/compare.py so that its CPU time and
resident memory are its own: each line in is `{"runs": N, "concurrency": C}`, each line out is
`{"latencies": [...], "wall_s": ..., "cpu_s": ..., "rss_mb": ...}`.
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


class State(TypedDict, total=False):
    text: str
    added: dict[str, Any]
    listed: dict[str, Any]


def langgraph_runner(todos: Todos, durable: bool, folder: Path) -> Callable[[], Any]:
    from langgraph.graph import END, START, StateGraph  # noqa: PLC0415

    graph = StateGraph(State)
    graph.add_node("add", lambda state: {"added": todos.add(state["text"])})
    graph.add_node("list", lambda state: {"listed": todos.list()})
    graph.add_edge(START, "add")
    graph.add_edge("add", "list")
    graph.add_edge("list", END)
    checkpointer = None
    if durable:
        from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: PLC0415

        conn = sqlite3.connect(folder / "checkpoints.db", check_same_thread=False)
        checkpointer = SqliteSaver(conn)
        checkpointer.setup()
    app = graph.compile(checkpointer=checkpointer)

    def run() -> Any:
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        return app.invoke({"text": "buy milk"}, config)

    return run


def dbos_runner(todos: Todos, database_url: str) -> Callable[[], Any]:
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

    @DBOS.step()
    def add_todo(text: str) -> dict[str, Any]:
        return todos.add(text)

    @DBOS.step()
    def list_todos() -> dict[str, Any]:
        return todos.list()

    @DBOS.workflow()
    def add_then_list(text: str) -> dict[str, Any]:
        add_todo(text)
        return list_todos()

    DBOS.launch()
    return lambda: add_then_list("buy milk")


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
            run = dbos_runner(todos, args.database_url)
        else:
            run = langgraph_runner(todos, args.system == "langgraph-sqlite", folder)
        run()  # warm up
        with ThreadPoolExecutor(max_workers=64) as pool:
            print(json.dumps({"ready": True, "rss_mb": rss_mb(), "pss_mb": pss_mb()}), flush=True)
            for line in sys.stdin:
                request = json.loads(line)
                print(json.dumps(batch(run, pool, request["runs"], request["concurrency"])), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
