"""The live run page in a real headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import shutil
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from agentrt.tools_sdk import ToolProvider, tool
from tests.e2e.procs import System, start_system
from tests.keys import key_for

pytestmark = pytest.mark.e2e

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HAVE_CHROMIUM = Path(CHROMIUM).exists()
# As root in a sandbox, and with no network beyond loopback: no sandbox, no background traffic.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Any:
    base = tmp_path_factory.mktemp("browser")
    running = start_system(base / "data", base / "up.log")
    yield running
    running.stop()


# Every frame reports each Content-Security-Policy violation to the test, as it happens.
REPORT_VIOLATIONS = """document.addEventListener("securitypolicyviolation", (e) => window.reportViolation(
  `${e.violatedDirective} refused ${e.blockedURI || "inline"} in ${e.documentURI}`));"""


@contextlib.asynccontextmanager
async def open_page(csp_violations: list[str] | None = None) -> AsyncIterator[Any]:
    """A page in a fresh headless Chromium; any JavaScript error on it fails the test, and so
    does anything the gateway's Content-Security-Policy refused (the page must work under it),
    unless the test passes `csp_violations` to collect them and judge them itself."""
    if not HAVE_CHROMIUM:
        pytest.skip(f"no chromium at {CHROMIUM}: install Debian's chromium package (make test does, as root)")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await browser.new_page()
        errors: list[str] = []
        violations: list[str] = [] if csp_violations is None else csp_violations
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        # Both ways Chromium tells: the DOM event and its console line.
        def report(text: str) -> None:  # (Playwright cannot expose a builtin such as list.append)
            violations.append(text)

        await page.expose_function("reportViolation", report)
        await page.add_init_script(REPORT_VIOLATIONS)

        def console(msg: Any) -> None:
            if "Content Security Policy" in msg.text or "X-Frame-Options" in msg.text:
                violations.append(msg.text)

        page.on("console", console)
        yield page
        await browser.close()
        assert errors == [], f"JavaScript errors on the page: {errors}"
        if csp_violations is None:
            assert violations == [], f"refused by the Content-Security-Policy: {violations}"


@pytest.fixture
async def page(system: System) -> AsyncIterator[Any]:
    async with open_page() as page:
        yield page


async def test_submit_a_prompt_and_watch_the_run_succeed(system: System, page: Any) -> None:
    await page.goto(system.http + "/")
    await page.wait_for_selector("#health.serving")
    await page.fill("#prompt", "Add a todo to buy milk, then show me all my tasks")
    await page.click("#submit")
    await page.wait_for_selector("#run-status.succeeded", timeout=15000)

    rows = page.locator("#steps tbody tr")
    assert await rows.count() == 2
    assert await rows.nth(0).locator("td").nth(1).inner_text() == "todo_store"
    for i in range(2):
        assert await rows.nth(i).locator(".badge").inner_text() == "succeeded"
    assert "buy milk" in await page.inner_text("#run-result")
    # The answer in words comes first, above the plan.
    assert await page.inner_text("#run-answer") == "Added 'buy milk' (#1). You have 1 todo: 1. buy milk."
    assert await page.locator("#events li").count() == 9
    assert await page.inner_text("#connection") == "finished"
    run_id = await page.inner_text("#run-id")
    assert page.url.endswith(f"#run={run_id}")
    await page.wait_for_selector(f'#runs li[data-run-id="{run_id}"]')

    # Reloading the page (or opening its URL elsewhere) replays the run from its events.
    await page.reload()
    await page.wait_for_selector("#run-status.succeeded")
    assert await page.locator("#events li").count() == 9
    assert await page.is_visible("#run-answer")

    # A run without an answer (it failed) shows none.
    await page.fill("#prompt", "book me a flight")
    await page.click("#submit")
    await page.wait_for_selector("#run-status.failed", timeout=15000)
    assert not await page.is_visible("#run-answer")


async def test_a_dropped_stream_reconnects_without_losing_or_repeating_events(
    system: System, page: Any
) -> None:
    cut = {"done": False}

    async def drop_first_stream_after_three_events(route: Any) -> None:
        if cut["done"]:
            await route.continue_()  # the reconnect: EventSource sends Last-Event-ID itself
            return
        cut["done"] = True
        real = await route.fetch()
        events = (await real.text()).strip().split("\n\n")
        # Deliver three events, then end the stream as a dropped connection would; `retry`
        # makes the browser reconnect after 100 ms instead of its default few seconds.
        await route.fulfill(
            status=200,
            headers={"content-type": "text/event-stream"},
            body="retry: 100\n\n" + "\n\n".join(events[:3]) + "\n\n",
        )

    await page.route("**/v1/runs/*/events*", drop_first_stream_after_three_events)
    await page.goto(system.http + "/")
    await page.fill("#prompt", "calculate 2+3, then add a todo with the result")
    await page.click("#submit")
    await page.wait_for_selector("#run-status.succeeded", timeout=15000)
    assert cut["done"]
    seqs = await page.eval_on_selector_all("#events li", "items => items.map(i => i.value)")
    assert seqs == list(range(1, len(seqs) + 1))
    assert len(seqs) == 9
    assert "Added '5' (#" in await page.inner_text("#steps")  # the result itself, added as a todo


async def test_a_rejected_prompt_shows_the_error(system: System, page: Any) -> None:
    await page.goto(system.http + "/")
    await page.fill("#prompt", "x" * 9000)
    await page.click("#submit")
    await page.wait_for_selector("#form-error:has-text('prompt must be at most')")
    await page.fill("#prompt", "book a flight to Rome")
    await page.click("#submit")
    await page.wait_for_selector("#run-status.failed", timeout=15000)
    assert "no rule understands 'book a flight to Rome'" in await page.inner_text("#run-error")


async def test_the_page_and_the_docs_work_under_their_content_security_policy(system: System) -> None:
    """Every test here fails on a refusal (open_page); this one shows the policy is there and
    enforced: a script injected into the page does not run, and /docs' inline script runs only
    because the policy names its hash."""
    violations: list[str] = []
    async with open_page(violations) as page:
        response = await page.goto(system.http + "/")
        csp = response.headers["content-security-policy"]
        assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp, csp
        await page.wait_for_selector("#health.serving")
        assert violations == []
        injected = """() => {
            const script = document.createElement("script");
            script.textContent = "window.injected = true";
            document.body.append(script);
            return window.injected === true;
        }"""
        assert await page.evaluate(injected) is False
        await page.wait_for_function("() => true")  # the event's report is a round trip away
        assert any(v.startswith("script-src") for v in violations), violations

        violations.clear()
        response = await page.goto(system.http + "/docs")
        assert "'sha256-" in response.headers["content-security-policy"]
        await page.wait_for_function("() => window.ui !== undefined")  # the inline script ran
        await page.wait_for_selector("#swagger-ui .swagger-ui")
        assert violations == []


async def test_another_site_cannot_frame_the_page(system: System) -> None:
    """The approve and cancel buttons cannot be put under another site's clicks (clickjacking):
    a page on another origin (a port of its own, a real server: Chromium treats a page Playwright
    fulfils itself as public, and refuses it a loopback frame whatever the headers say) that
    frames the live run page gets Chromium's error page in the frame."""
    violations: list[str] = []
    framing = f'<!doctype html><title>elsewhere</title><iframe src="{system.http}/"></iframe>'
    with serve_html(framing) as elsewhere:
        async with open_page(violations) as page:
            await page.goto(elsewhere)  # waits for the frame's load, refused or not
            [frame] = page.main_frame.child_frames
            assert frame.url == "chrome-error://chromewebdata/"
            assert await frame.query_selector("#prompt") is None, "the page rendered inside a frame"
    assert any("frame-ancestors 'none'" in v for v in violations), violations


@contextlib.contextmanager
def serve_html(body: str) -> Iterator[str]:
    """`body` served at the URL yielded, by a server of its own on a free loopback port."""
    data = body.encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


async def test_the_page_waits_out_rate_limits_and_says_so(system: System, page: Any) -> None:
    """A tight rate limit answers 429 to the page's reads: it must wait, say so, and recover."""
    refused = {"n": 0}

    async def limit_run_reads(route: Any) -> None:
        if route.request.method == "GET" and refused["n"] < 4:
            refused["n"] += 1
            await route.fulfill(
                status=429,
                headers={"content-type": "application/json", "retry-after": "1"},
                body=json.dumps(
                    {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "slow down"}}
                ),
            )
            return
        await route.continue_()

    await page.goto(system.http + "/")
    await page.route("**/v1/runs/*", limit_run_reads)
    await page.route("**/v1/runs/*/events*", limit_run_reads)
    await page.fill("#prompt", "calculate (10 + 5) * 2")
    await page.click("#submit")
    await page.wait_for_selector("#waiting:has-text('rate limited'), #connection:has-text('waiting')")
    await page.wait_for_selector("#run-status.succeeded", timeout=20000)
    assert refused["n"] == 4
    assert "30" in await page.inner_text("#run-result")
    assert await page.inner_text("#run-prompt") == "calculate (10 + 5) * 2"


async def test_a_phone_sized_window_shows_the_run_panel(system: System, page: Any) -> None:
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(system.http + "/")
    assert await page.is_visible("#welcome")  # not a blank half on first load
    assert "Type a request" in await page.inner_text("#welcome")
    # A long request, so that the answer would fall below the fold under the form and lists.
    await page.fill("#prompt", "add 3 and 4, then add a todo with the result, then show me all my tasks")
    await page.click("#submit")
    await page.wait_for_selector("#run-status.succeeded", timeout=15000)
    assert not await page.is_visible("#welcome")
    # The run has the window: nothing scrolls sideways, and the answer is in view unscrolled.
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    assert await page.evaluate("window.scrollY") == 0
    answer = await page.locator("#run-answer").bounding_box()
    assert answer is not None and answer["y"] >= 0 and answer["y"] + answer["height"] <= 844
    assert answer["x"] >= 0 and answer["x"] + answer["width"] <= 390
    # Each step is a card whose cells say what they are; none is wider than the window.
    steps = page.locator("#steps tbody tr")
    assert await steps.count() == 3
    for n in range(3):
        card = await steps.nth(n).bounding_box()
        assert card is not None and card["x"] >= 0 and card["x"] + card["width"] <= 390
    tool = steps.nth(0).locator("td").nth(1)
    assert await tool.evaluate("cell => getComputedStyle(cell, '::before').content") == '"tool"'
    assert await tool.inner_text() == "calculator"
    # No two controls on top of each other.
    boxes = [
        b for b in [await button.bounding_box() for button in await page.locator("button:visible").all()] if b
    ]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"]
                or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"]
                or b["y"] + b["height"] <= a["y"]
            )
            assert apart, f"controls overlap: {a} {b}"
    # Back: the form and the lists again.
    await page.click("#run-back")
    assert await page.is_visible("#prompt") and not await page.is_visible("#run")
    favicon = await page.request.get(system.http + "/favicon.ico")
    assert favicon.status == 200


# How long a turn may take at most in the chat tests: generous, for a loaded machine (every wait
# is for a condition, and returns as soon as it holds).
TURN_MS = 30000


async def send(page: Any, text: str, turn: int) -> Any:
    """Send `text` in the chat view, as a person does; returns the turn's entry once it shows."""
    await page.fill("#chat-prompt", text)
    await page.click("#chat-send")
    item = page.locator(f'#turns li.turn[data-turn="{turn}"]')
    await item.wait_for()
    return item


async def test_a_two_turn_conversation_on_a_phone(system: System, page: Any) -> None:
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(system.http + "/")
    await page.click("#new-thread")
    assert await page.is_visible("#chat") and not await page.is_visible("#threads")
    first = await send(page, "add a todo to call the vet", 1)
    await first.locator(".turn-meta .badge.succeeded").wait_for(timeout=TURN_MS)
    second = await send(page, "what is 12 times 4", 2)
    await second.locator(".turn-meta .badge.succeeded").wait_for(timeout=TURN_MS)

    turns = page.locator("#turns li.turn")
    assert await turns.count() == 2
    assert await turns.locator(".bubble.mine").all_inner_texts() == [
        "add a todo to call the vet",
        "what is 12 times 4",
    ]
    assert (await first.locator(".bubble.reply").inner_text()).startswith("Added 'call the vet' (#")
    assert await second.locator(".bubble.reply").inner_text() == "12 * 4 = 48"
    # Each turn's steps, one compact line each.
    assert await first.locator(".turn-steps .tool").all_inner_texts() == ["todo_store"]
    assert await second.locator(".turn-steps .tool").all_inner_texts() == ["calculator"]
    assert await page.inner_text("#chat-send") == "Send" and await page.inner_text("#chat-busy") == ""
    assert (
        page.url.split("#thread=")[1] and await page.inner_text("#chat-title") == "add a todo to call the vet"
    )

    # Nothing scrolls sideways; the latest answer and the message box are in the window.
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    for selector in ("#turns li.turn:last-child .bubble.reply", "#chat-prompt", "#chat-send"):
        box = await page.locator(selector).bounding_box()
        assert box is not None, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390 + 1, (selector, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844 + 1, (selector, box)
    # The header's buttons and the message box's do not overlap.
    boxes = [await page.locator(s).bounding_box() for s in ("#chat-back", "#chat-title", "#chat-delete")]
    boxes += [await page.locator(s).bounding_box() for s in ("#chat-prompt", "#chat-send")]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert a is not None and b is not None
            apart = a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
            apart = apart or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"]
            assert apart, (a, b)

    # Back shows the lists, with this conversation first (newest first).
    await page.click("#chat-back")
    assert await page.is_visible("#threads") and not await page.is_visible("#chat")
    assert "add a todo to call the vet" in await page.locator("#threads li").first.inner_text()


async def test_approve_a_step_in_the_chat_view_while_the_next_message_waits(tmp_path: Path) -> None:
    """Deleting a todo waits for a person (the destructive policy, with rule plans not exempt): the
    chat says so in place, a message sent meanwhile is queued behind it, and Approve there lets
    both turns finish."""
    if not HAVE_CHROMIUM:
        pytest.skip(f"no chromium at {CHROMIUM}: install Debian's chromium package (make test does, as root)")
    running = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
        AGENTRT_APPROVAL_EXEMPT_RULES="false",
        AGENTRT_APPROVAL_POLICY="destructive",
    )
    try:
        async with open_page() as page:
            await page.goto(running.http + "/")
            await page.click("#new-thread")
            first = await send(page, "add a todo to water the ferns", 1)
            await first.locator(".turn-meta .badge.succeeded").wait_for(timeout=TURN_MS)
            second = await send(page, "remove the water the ferns todo", 2)
            waiting = second.locator(".turn-steps li.waiting")
            await waiting.wait_for(timeout=TURN_MS)
            assert "todo_store delete is destructive" in await waiting.locator(".approval").inner_text()
            await second.locator(".turn-meta .badge.waiting").wait_for()
            # While it waits, a new message is queued, and the page says so before it is sent.
            assert await page.inner_text("#chat-send") == "Queue"
            assert "waits for your approval" in await page.inner_text("#chat-busy")
            third = await send(page, "what is 12 times 4", 3)
            await third.locator(".turn-meta .badge.queued").wait_for(timeout=TURN_MS)

            # Reject, then cancel the question why: nothing is rejected.
            rejects: list[str] = []
            page.on(
                "request", lambda request: rejects.append(request.url) if ":reject" in request.url else None
            )
            page.once("dialog", lambda dialog: asyncio.ensure_future(dialog.dismiss()))
            await waiting.locator("button.reject").click()
            await waiting.locator("button.approve").click()
            await second.locator(".turn-meta .badge.succeeded").wait_for(timeout=TURN_MS)
            assert rejects == []
            assert await second.locator(".bubble.reply").inner_text() == "Deleted 'water the ferns'."
            assert await second.locator(".turn-steps .badge").all_inner_texts() == ["succeeded"]
            await third.locator(".turn-meta .badge.succeeded").wait_for(timeout=TURN_MS)
            assert await third.locator(".bubble.reply").inner_text() == "12 * 4 = 48"
            # A function, not an expression: Playwright polls an expression with eval, which the
            # page's Content-Security-Policy refuses.
            await page.wait_for_function("() => document.querySelector('#chat-send').textContent === 'Send'")
    finally:
        running.stop()


async def test_the_thread_list_reopens_and_deletes_a_conversation(system: System, page: Any) -> None:
    await page.goto(system.http + "/")
    await page.click("#new-thread")
    turn = await send(page, "what is 6 times 7", 1)
    await turn.locator(".turn-meta .badge.succeeded").wait_for(timeout=TURN_MS)
    thread_id = page.url.split("#thread=")[1]
    listed = page.locator(f'#threads li[data-thread-id="{thread_id}"]')
    await listed.wait_for()
    assert await page.locator("#threads li").first.get_attribute("data-thread-id") == thread_id
    assert "what is 6 times 7" in await listed.inner_text()

    # A fresh page, then the conversation from the list: its turns, answers and steps.
    await page.goto("about:blank")
    await page.goto(system.http + "/")
    await listed.click()
    reopened = page.locator('#turns li.turn[data-turn="1"]')
    await reopened.locator(".bubble.reply").wait_for()
    assert await reopened.locator(".bubble.mine").inner_text() == "what is 6 times 7"
    assert await reopened.locator(".bubble.reply").inner_text() == "6 * 7 = 42"
    await reopened.locator(".turn-steps .tool:has-text('calculator')").wait_for()
    assert page.url.endswith(f"#thread={thread_id}")
    # Its link opens the turn's run in the run panel, with the same answer.
    await reopened.locator("a:has-text('details')").click()
    await page.wait_for_selector("#run-status.succeeded")
    assert await page.inner_text("#run-answer") == "6 * 7 = 42" and not await page.is_visible("#chat")

    await page.reload()  # (the run's URL; the thread opens again from the list)
    await listed.click()
    await page.wait_for_selector("#chat-delete")
    page.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
    await page.click("#chat-delete")
    await listed.wait_for(state="detached")
    assert await page.is_visible("#welcome") and not await page.is_visible("#chat")
    gone = await page.request.get(f"{system.http}/v1/threads/{thread_id}")
    assert gone.status == 404


async def test_a_long_conversation_opens_at_its_latest_turns_and_pages_back(
    system: System, page: Any
) -> None:
    """The chat reads 20 turns at a time: a 21-turn thread opens at its latest 20, and
    "earlier turns" adds the first above them."""
    created = await page.request.post(f"{system.http}/v1/threads", data={})
    thread_id = (await created.json())["thread"]["threadId"]
    for n in range(1, 22):
        body = {"prompt": f"what is {n} times 2", "multitaskStrategy": "MULTITASK_STRATEGY_ENQUEUE"}
        sent = await page.request.post(f"{system.http}/v1/threads/{thread_id}/runs", data=body)
        assert sent.ok, await sent.text()
    await page.goto(f"{system.http}/#thread={thread_id}")
    latest = page.locator('#turns li.turn[data-turn="21"]')
    await latest.locator(".turn-meta .badge.succeeded").wait_for(timeout=TURN_MS)
    assert await latest.locator(".bubble.reply").inner_text() == "21 * 2 = 42"
    assert await page.locator("#turns li.turn").count() == 20
    await page.click("#turns li.earlier button")
    first = page.locator('#turns li.turn[data-turn="1"]')
    await first.locator(".bubble.reply").wait_for()
    assert await page.locator("#turns li.turn").first.get_attribute("data-turn") == "1"
    assert await page.locator("#turns li.turn").count() == 21
    assert await page.locator("#turns li.earlier").count() == 0  # nothing before the first turn


@tool(name="nap", version="1.0.0")
async def nap(seconds: float) -> dict[str, float]:
    """Sleeps, the first time it is called for a given length.

    Args:
        seconds: How long.
    """
    NAPS[seconds] = NAPS.get(seconds, 0) + 1
    if NAPS[seconds] == 1:
        NAPPING.set()
        await asyncio.sleep(seconds)
    return {"slept": seconds}


NAPS: dict[float, int] = {}
NAPPING = asyncio.Event()  # the first nap has reached the provider


async def test_cancel_and_retry_buttons(system: System, page: Any) -> None:
    provider = ToolProvider([nap], tools_addr=f"127.0.0.1:{system.ports['tools']}")
    await provider.start()
    try:
        await page.goto(system.http + "/")
        await page.fill("#prompt", 'calculate 2 + 2, then use nap with {"seconds": 60}')
        await page.click("#submit")
        # Until it runs, the second step's arguments say where a reference would come from.
        await page.wait_for_selector("#steps tbody tr:nth-child(2) .badge.running", timeout=15000)
        assert await page.is_visible("#cancel") and not await page.is_visible("#retry")
        # The step shows as running once its attempt is recorded, which can be before its call
        # reaches the provider: a cancel then would leave the retry's call as the first (long) nap.
        await asyncio.wait_for(NAPPING.wait(), 15)
        await page.click("#cancel")
        await page.wait_for_selector("#run-status.cancelled", timeout=15000)
        assert not await page.is_visible("#cancel")
        await page.click("#retry")  # the nap returns at once the second time
        await page.wait_for_selector("#run-status.succeeded", timeout=15000)
        assert '"slept": 60' in await page.inner_text("#run-result")
        assert not await page.is_visible("#retry")
    finally:
        await provider.stop(0)


async def test_pending_steps_show_where_a_reference_comes_from(system: System, page: Any) -> None:
    async def hold_after_the_plan(route: Any) -> None:
        real = await route.fetch()
        events = [
            e for e in (await real.text()).strip().split("\n\n") if "plan_created" in e or "PENDING" in e
        ]
        await route.fulfill(
            status=200, headers={"content-type": "text/event-stream"}, body="\n\n".join(events) + "\n\n"
        )

    await page.route("**/v1/runs/*/events*", hold_after_the_plan)
    await page.goto(system.http + "/")
    await page.fill("#prompt", "calculate 2+3, then add a todo with the result")
    await page.click("#submit")
    await page.wait_for_selector("#steps tbody tr:nth-child(2)")
    arguments = await page.locator("#steps tbody tr:nth-child(2) td").nth(4).inner_text()
    assert "(from s1)" in arguments and "{{" not in arguments


async def test_an_agent_run_streams_its_answer_onto_the_page(tmp_path: Path) -> None:
    """Auto mode with an LLM: a prompt the rules do not understand goes to the agent loop. The
    model (a scripted OpenAI-compatible server, writing slowly) calls the calculator, then
    answers; its words appear on the page as it writes them, then the stored answer."""
    from tests.scripted_llm import ScriptedLLM, answer, call  # noqa: PLC0415

    if not HAVE_CHROMIUM:
        pytest.skip(f"no chromium at {CHROMIUM}: install Debian's chromium package (make test does, as root)")
    llm = ScriptedLLM(
        [call("calculator", expression="6 * 7"), answer("Six times seven is forty two, as asked.")]
    )
    llm.word_delay = 0.4
    llm.start_in_thread()
    running = start_system(
        tmp_path / "data", tmp_path / "up.log", AGENTRT_LLM_MODELS=json.dumps([llm.model()])
    )
    try:
        async with open_page() as page:
            await page.goto(running.http + "/")
            await page.wait_for_selector("#health.serving")
            await page.fill("#prompt", "six times seven, in words please")
            await page.click("#submit")
            # Part of the answer, while the run is still going: the streamed words.
            await page.wait_for_function(  # a function: the page's CSP refuses eval (see above)
                "() => document.querySelector('#run-answer').textContent.startsWith('Six times')"
                " && !document.querySelector('#run-status').classList.contains('succeeded')",
                timeout=20000,
            )
            await page.wait_for_selector("#run-status.succeeded", timeout=20000)
            assert await page.inner_text("#run-answer") == "Six times seven is forty two, as asked."
            rows = page.locator("#steps tbody tr")
            assert await rows.count() == 1
            assert await rows.nth(0).locator("td").nth(0).inner_text() == "t1-1"
            events = await page.locator("#events li").all_inner_texts()
            assert "turn 1: t1-1 calculator" in events and "turn 2: answered" in events
            assert await page.inner_text("#planner") == "agent, turn 2"
    finally:
        running.stop()
        llm.stop_thread()


async def test_approve_and_reject_on_the_live_page(tmp_path: Path) -> None:
    """Under the destructive policy LLM plans need a person for destructive calls (and not for
    adds): the page shows why a step waits, and its Approve and Reject buttons decide (Reject asks
    for a reason)."""
    from tests.scripted_llm import ScriptedLLM  # noqa: PLC0415

    if not HAVE_CHROMIUM:
        pytest.skip(f"no chromium at {CHROMIUM}: install Debian's chromium package (make test does, as root)")
    llm = ScriptedLLM()

    def plan(request: dict[str, Any]) -> Any:
        from tests.scripted_llm import Reply  # noqa: PLC0415

        asked = request["messages"][-1]["content"]
        if "add a todo to " in asked:
            arguments: dict[str, Any] = {"action": "add", "text": asked.rsplit("add a todo to ", 1)[1]}
        else:
            arguments = {"action": "delete", "id": 1 if "first" in asked else 2}
        step = {"id": "s1", "tool": "todo_store", "arguments": arguments, "depends_on": []}
        return Reply(content=json.dumps({"steps": [step]}))

    llm.script = plan
    llm.start_in_thread()
    models = [llm.model(tool_calling="json", response_format="json_schema")]
    running = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
        AGENTRT_LLM_MODELS=json.dumps(models),
        AGENTRT_PLANNER_CHAIN='["llm"]',
        AGENTRT_DEFAULT_MODE="plan",
        AGENTRT_APPROVAL_POLICY="destructive",
    )
    try:
        async with open_page() as page:
            page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept("keep it")))
            await page.goto(running.http + "/")
            await page.wait_for_selector("#health.serving")
            for text in ("a", "b"):
                await page.fill("#prompt", f"add a todo to {text}")
                await page.click("#submit")
                await page.wait_for_selector("#run-status.succeeded", timeout=15000)

            await page.fill("#prompt", "delete the first todo")
            await page.click("#submit")
            await page.wait_for_selector("#run-status.waiting", timeout=15000)
            row = page.locator("#steps tbody tr").nth(0)
            assert "todo_store delete is destructive" in await row.locator(".approval").inner_text()
            await row.locator("button.approve").click()
            await page.wait_for_selector("#run-status.succeeded", timeout=15000)
            assert "Deleted" in await page.inner_text("#run-result")

            await page.fill("#prompt", "delete the second todo")
            await page.click("#submit")
            await page.wait_for_selector("#run-status.waiting", timeout=15000)
            await page.locator("#steps tbody tr").nth(0).locator("button.reject").click()
            await page.wait_for_selector("#run-status.failed", timeout=15000)
            assert "rejected by local: keep it" in await page.inner_text("#run-error")
    finally:
        running.stop()
        llm.stop_thread()


async def test_another_keys_run_is_not_found_on_the_page(tmp_path: Path) -> None:
    """Two keys in one browser: what alice ran does not exist for bob's key, on the page too."""
    if not HAVE_CHROMIUM:
        pytest.skip(f"no chromium at {CHROMIUM}: install Debian's chromium package (make test does, as root)")
    keys = {"alice": key_for("alice"), "bob": key_for("bob")}
    running = start_system(tmp_path / "data", tmp_path / "up.log", AGENTRT_API_KEYS=json.dumps(keys))
    try:
        async with open_page() as page:
            await page.goto(running.http + "/")
            await use_key(page, keys["alice"])
            await page.fill("#prompt", "add a todo to buy milk")
            await page.click("#submit")
            await page.wait_for_selector("#run-status.succeeded", timeout=15000)
            alices = page.url
            await use_key(page, keys["bob"])
            await page.goto(alices)
            await page.reload()  # (a new hash alone is no new page load)
            await page.wait_for_selector("#connection:has-text('not found')", timeout=15000)
            assert "not found" in await page.inner_text("#run-error")
            assert await page.inner_text("#run-result") == "\u2013"  # nothing of the run shown
    finally:
        running.stop()


async def use_key(page: Any, key: str) -> None:
    """Type `key` into the page's API key field, as a person does (it sits in a closed <details>)."""
    if not await page.is_visible("#api-key"):
        await page.click("summary:has-text('API key')")
    await page.fill("#api-key", key)
    await page.dispatch_event("#api-key", "change")


async def test_the_page_says_when_the_gateway_goes_away_and_when_it_is_back(tmp_path: Path) -> None:
    running = start_system(tmp_path / "data", tmp_path / "up.log")
    try:
        async with open_page() as page:
            await page.goto(running.http + "/")
            await page.wait_for_selector("#health.serving")
            assert running.stop() == 0
            # Seconds after the gateway went: first it tries again, then it says so.
            await page.wait_for_selector("#health.reconnecting", timeout=30000)
            await page.wait_for_selector("#health.unreachable", timeout=30000)
            assert await page.inner_text("#health") == "gateway unreachable"
            running = start_system(tmp_path / "data", tmp_path / "up.log", list(running.ports.values()))
            await page.wait_for_selector("#health.serving", timeout=30000)
            assert await page.inner_text("#health") == "serving"
    finally:
        running.stop()
