"""What the rule planner names, todo_store finds: every open todo of the tuning part's lists,
reported done in the past tense ("I called mom") or asked to go ("the gym one can go"), is
planned, then looked up by todo_store's own lookup in that list; it must be that todo, or an
error (ambiguous, not found): never another todo."""

import json
import random
from pathlib import Path

import sqlalchemy as sa

from agentrt.core import wordforms
from agentrt.core.errors import ToolError
from planner_svc import rules
from planner_svc.grammar import lexicon
from planner_svc.planner import PlanningFailed
from tools_svc.schema import todos as table
from tools_svc.todos import naming as store

TOOLS = {"calculator", "todo_store"}
CORPUS = Path(__file__).resolve().parents[2] / "evals" / "requests" / "tuning.json"
GO = ("delete the {t} one", "get rid of the {t} todo", "{t} can go", "scrap {t}", "take {t} off my list")


def past(verb: str) -> str:
    irregular = [p for p, base in wordforms.IRREGULAR.items() if base == verb]
    if irregular:
        return irregular[0]
    if verb.endswith("e"):
        return verb + "d"
    return verb[:-1] + "ied" if verb.endswith("y") and verb[-2] not in "aeiou" else verb + "ed"


def test_what_the_planner_names_is_the_todo_meant() -> None:
    engine = sa.create_engine("sqlite://")
    table.metadata.create_all(engine)
    wrong, resolved = [], 0
    for request in json.loads(CORPUS.read_text())["requests"]:
        listed = [
            (t, False) if isinstance(t, str) else (t["text"], t["done"])
            for t in request.get("todos_before", [])
        ]
        for k, (text, done) in enumerate(listed):
            words = text.split()
            if len(words) < 2 or " and " in text or "," in text:
                continue
            asks = [(random.Random(text).choice(GO).format(t=text), "delete")]
            if not done and words[0].lower() in lexicon.TODO_VERBS:
                asks.append((f"I {past(words[0].lower())} {' '.join(words[1:])}", "complete"))
            for said, action in asks:
                try:
                    calls = [i.arguments for i in rules.plan(said, TOOLS) if i.tool == "todo_store"]
                except PlanningFailed:
                    continue
                which = calls[0].get("text", calls[0].get("id")) if len(calls) == 1 else None
                if which is None or calls[0]["action"] != action:
                    wrong.append((said, calls))
                    continue
                with engine.begin() as conn:
                    conn.execute(table.delete())
                    for number, (name, finished) in enumerate(listed, start=1):
                        values = {
                            "owner": "u",
                            "number": number,
                            "text": name,
                            "done": int(finished),
                            "created_at": 0,
                        }
                        conn.execute(table.insert().values(**values))
                    try:
                        found = store.find_number(conn, "u", which, open_first=action == "complete")
                    except ToolError:
                        continue
                resolved += 1
                if found != k + 1:
                    wrong.append((said, listed[found - 1][0]))
    assert resolved > 1000
    assert not wrong, "\n".join(map(str, wrong[:20]))
