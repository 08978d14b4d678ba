"""TodoStore: one todo_store call, dispatched by its action to a read or a change of the caller's
list, each change committed with the call's idempotency record."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy.engine import Connection

from agentrt.core.errors import ToolError
from agentrt.server.db import Database
from tools_svc.callcontext import current_call
from tools_svc.invocations import current_invocation
from tools_svc.todos import changes, reads
from tools_svc.todos.naming import every_named, find_numbers, number_at
from tools_svc.todos.spec import MAX_PAGE


class TodoStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def run(self, arguments: dict[str, Any]) -> dict[str, Any]:
        action = arguments["action"]
        guard = (action, arguments["unchanged"]) if "unchanged" in arguments else None
        write = functools.partial(self._write, guard=guard)
        owner = current_call().principal
        state = arguments.get("state")
        if action == "list":
            offset, limit = arguments.get("offset", 0), arguments.get("limit", MAX_PAGE)
            todos, count, total = await self._db.read(
                lambda c: reads.list_page(c, owner, state, offset, limit)
            )
            page: dict[str, Any] = {"todos": todos, "count": count}
            if offset + len(todos) < count:
                page |= {"truncated": True, "next_offset": offset + len(todos)}
            return page | {"summary": reads.list_summary(todos, count, offset, state, total)}
        if action == "count":
            return await self._db.read(lambda c: reads.tally(c, owner, state))
        if action == "delete_all":
            return await write(lambda c: changes.delete_all(c, owner, state))
        if action == "add":
            texts = arguments["texts"] if "texts" in arguments else [arguments["text"]]
            if any("\x00" in t for t in texts):  # PostgreSQL refuses NUL; say so rather than fail INTERNAL
                raise ToolError("todo text must not contain NUL characters", reason="INVALID_TODO_TEXT")
            if "texts" in arguments:
                return await write(lambda c: changes.add_many(c, owner, texts))
            return await write(lambda c: changes.added(changes.add_texts(c, owner, texts)[0]))
        if action == "restore":  # by id only: a deleted todo is named by the id its deletion returned
            numbers = list(arguments.get("ids", [arguments.get("id")]))
            if "ids" in arguments:
                return await write(lambda c: changes.restore_many(c, owner, numbers))
            return await write(lambda c: changes.restored(changes.restore_one(c, owner, numbers[0])))
        if action == "reopen" and state is None and ("text" in arguments or "texts" in arguments):
            state = "done"  # "reopen buy milk": the done one (an open one is open already)
        one = changes.ONE.get(action)
        change_one = changes.CHANGES.get(action)
        if "position" in arguments:  # "the second one on my list": which one when the call runs
            place = arguments["position"]
            if action == "find":
                return await self._db.read(lambda c: reads.found(c, owner, [number_at(c, owner, place)]))
            return await write(lambda c: one(change_one(c, owner, number_at(c, owner, place))))
        if "matching" in arguments or "every" in arguments:
            # "paid both bills": every todo one text names, so many of them (or however many:
            # "delete all the milk ones")
            text, matching = arguments["text"], arguments.get("matching")

            if action == "find":
                return await self._db.read(
                    lambda c: reads.found(c, owner, list(every_named(c, owner, text, matching, state)))
                )

            def every(conn: Connection) -> dict[str, Any]:
                numbers = every_named(conn, owner, text, matching, state)
                return changes.change_many(conn, owner, action, numbers, state)

            return await write(every)
        if action == "find":  # a plan checks its names before it changes anything (rules._checked_first)
            which_all: list[int | str | None] = list(
                arguments.get("ids", arguments.get("texts", [arguments.get("id", arguments.get("text"))]))
            )
            return await self._db.read(lambda c: reads.found(c, owner, which_all, state))
        if "ids" in arguments or "texts" in arguments:
            several: list[int | str] = list(arguments.get("ids", arguments.get("texts", [])))
            return await write(lambda c: changes.change_many(c, owner, action, several, state))
        which = arguments.get("id", arguments.get("text"))

        def named(conn: Connection) -> dict[str, Any]:  # completing prefers the open todo of a text
            numbers = find_numbers(conn, owner, which, open_first=action == "complete", state=state)
            if len(numbers) > 1:  # "milk and eggs" with no todo of that name: each one it joins
                return changes.change_many(conn, owner, action, numbers, state)
            return one(change_one(conn, owner, numbers[0]))

        return await write(named)

    async def _write(
        self, change: Any, guard: tuple[str, list[dict[str, Any]]] | None = None
    ) -> dict[str, Any]:
        # The change and its idempotency record commit together: a caller cancelled mid-call
        # can never leave a todo added but unrecorded (which a retry would then add again).
        invocation = current_invocation()

        def transaction(conn: Connection) -> dict[str, Any]:
            if invocation is not None:
                # A call made before (a step retried after its answer was lost): its answer, and
                # nothing done again. Read here, in the change's own transaction, so run_once
                # need not read it first (it is told so: looks_up_itself).
                found, recorded = invocation.recorded_in(conn)
                if found:
                    return recorded  # type: ignore[no-any-return]
            if guard is not None:
                # an undo reverses nothing that changed since (checked with the change, atomically)
                changes.unchanged(conn, current_call().principal, *guard)
            output = change(conn)
            if invocation is not None:
                invocation.record_in(conn, output)
            return output

        return await self._db.transaction(transaction)
