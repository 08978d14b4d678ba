// The live run page: submit a prompt, then render the run purely from its Server-Sent Events.
// Every event carries the full state of what changed (status, plan, step), so the page never
// polls; EventSource reconnects by itself with Last-Event-ID, and events are applied once by seq.
// The chat view shows a thread (a conversation) the same way: its finished turns as read, and
// the turn in progress from that turn's events.
"use strict";

const $ = (selector) => document.querySelector(selector);
const KEY = "agentrt.apiKey";
const STEP_COLUMNS = ["step", "tool", "status", "attempts", "arguments", "output"];
const TERMINAL = new Set(["RUN_STATUS_SUCCEEDED", "RUN_STATUS_FAILED", "RUN_STATUS_CANCELLED"]);
// The run panel's run, as followed live (see stream), or null while the panel is not shown.
let view = null;
// The open conversation (see openThread), or null while the chat view is not shown.
let chat = null;

const short = (value, prefix) => (value || "").replace(prefix, "").toLowerCase();
const json = (value) => (value === undefined ? "" : JSON.stringify(value));
// An element with its properties set; text goes in as textContent, never as markup.
const el = (tag, props = {}, ...children) => {
  const element = Object.assign(document.createElement(tag), props);
  element.append(...children);
  return element;
};

function authHeaders() {
  const key = localStorage.getItem(KEY);
  return key ? { Authorization: `Bearer ${key}` } : {};
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Rate limited (429): wait as long as Retry-After says (doubling when it says nothing), say so,
// and try again, so a page under a tight limit recovers by itself instead of going blank.
async function api(path, options = {}, attempts = 8) {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(path, {
      ...options,
      headers: { "Content-Type": "application/json", ...authHeaders(), ...(options.headers || {}) },
    });
    if (response.status === 429 && attempt < attempts) {
      const seconds = Number(response.headers.get("Retry-After")) || 2 ** attempt / 2;
      setWaiting(`rate limited: retrying in ${seconds}s…`);
      await sleep(seconds * 1000);
      continue;
    }
    setWaiting("");
    const body = response.status === 204 ? null : await response.json();
    if (!response.ok) {
      const error = new Error(body?.error?.message || response.statusText);
      error.status = response.status;
      throw error;
    }
    return body;
  }
}

function setWaiting(text) {
  $("#waiting").textContent = text;
}

function badge(element, text, prefix) {
  const value = short(text, prefix);
  element.textContent = value;
  element.className = `badge ${value}`;
}

async function loadRuns() {
  try {
    const { runs = [] } = await api("/v1/runs?page_size=20");
    const list = $("#runs");
    list.replaceChildren(...runs.map((run) => {
      const item = document.createElement("li");
      item.dataset.runId = run.runId;
      const status = document.createElement("span");
      badge(status, run.status, "RUN_STATUS_");
      const text = document.createElement("span");
      text.className = "text";
      text.textContent = run.prompt;
      item.append(status, text);
      item.addEventListener("click", () => openRun(run.runId));
      return item;
    }));
  } catch (error) {
    $("#form-error").textContent = error.message;
  }
}

// The gateway's state as this page sees it, kept current: /healthz every few seconds, sooner
// after a failure, and at once when a run's stream breaks or the tab comes back. One failed
// check says "reconnecting…"; UNREACHABLE_AFTER in a row say the gateway is unreachable (the
// page keeps trying, and says "serving" again as soon as it answers).
const HEALTH_EVERY_MS = 5000;
const HEALTH_RETRY_MS = 2000;
const UNREACHABLE_AFTER = 3;
let healthFailures = 0;
let healthTimer = null;

async function loadHealth() {
  clearTimeout(healthTimer);
  let next = HEALTH_EVERY_MS;
  try {
    const response = await fetch("/healthz", { cache: "no-store", signal: AbortSignal.timeout(4000) });
    const body = await response.json();
    const services = Object.entries(body.services || {}).map(([k, v]) => `${k}: ${v}`).join("\n");
    const back = healthFailures > 0;
    healthFailures = 0;
    const state = body.status === "SERVING" ? "serving" : "degraded";
    showHealth(state, state, services);
    if (back) { loadRuns(); loadThreads(); } // what changed while the page could not ask
  } catch {
    healthFailures += 1;
    next = HEALTH_RETRY_MS;
    if (healthFailures >= UNREACHABLE_AFTER) {
      showHealth("unreachable", "gateway unreachable", `no answer from ${location.host} in ${healthFailures} tries; still trying`);
    } else {
      showHealth("reconnecting", "reconnecting…", `no answer from ${location.host}; trying again`);
    }
  }
  healthTimer = setTimeout(loadHealth, next);
}

function showHealth(state, text, title) {
  const element = $("#health");
  element.textContent = text;
  element.className = `badge ${state}`;
  element.title = title;
}

// Which of the main area's panels shows: the welcome text, one run, or a conversation. On a
// narrow screen the conversation takes the whole window (body.chatting hides the lists).
function showPanel(name) {
  $("#welcome").hidden = name !== "welcome";
  $("#run").hidden = name !== "run";
  $("#chat").hidden = name !== "chat";
  document.body.classList.toggle("chatting", name === "chat");
  document.body.classList.toggle("viewing-run", name === "run");
}

// -- following a run's events ------------------------------------------------------------------

// Follows the run `live.runId` from after `afterSeq`: each stored event goes to live.apply once
// (by seq), the model's streamed words to live.delta, a stream error to live.failed and the
// connection's state to live.connection. `live` is the run panel's run or a chat turn; stop()
// ends it. EventSource retries dropped connections itself, but gives up on an HTTP error (a 429
// under a tight rate limit): then wait, and open it again from the last event applied.
function stream(live, afterSeq, failures = 0) {
  const key = localStorage.getItem(KEY);
  const url = `/v1/runs/${encodeURIComponent(live.runId)}/events?after_seq=${afterSeq}${key ? `&access_token=${encodeURIComponent(key)}` : ""}`;
  const current = new EventSource(url);
  live.source = current;
  current.onopen = () => { live.connection("live"); setWaiting(""); };
  current.onerror = () => {
    if (healthFailures === 0) loadHealth(); // the stream broke: is it the gateway?
    if (current.readyState !== EventSource.CLOSED) {
      live.connection("reconnecting…");
      return;
    }
    if (live.stopped || live.missing || TERMINAL.has(live.status) || live.source !== current) return;
    const seconds = Math.min(2 ** failures, 16);
    live.connection(`waiting ${seconds}s to reconnect (rate limited or unreachable)…`);
    setTimeout(() => {
      if (!live.stopped && live.source === current) stream(live, live.lastSeq, failures + 1);
    }, seconds * 1000);
  };
  for (const kind of ["status_changed", "plan_created", "step_updated", "turn_decided"]) {
    current.addEventListener(kind, (message) => {
      const seq = Number(message.lastEventId);
      if (live.stopped || seq <= live.lastSeq) return; // already applied (a replay after reconnecting)
      live.lastSeq = seq;
      live.apply(kind, seq, JSON.parse(message.data));
    });
  }
  // Agent mode: the model's words as it writes them. Transient (no id, never replayed): the
  // stored turn_decided event, or the run's answer, replaces them.
  current.addEventListener("text_delta", (message) => {
    if (!live.stopped) live.delta(JSON.parse(message.data).textDelta.text);
  });
  // The model not answering (stored: a retry with its reason) or slow (transient: a heartbeat):
  // said on the connection line, so a run in "planning" is never a silent one.
  current.addEventListener("planner_retry", (message) => {
    if (live.stopped) return;
    const retry = JSON.parse(message.data).plannerRetry;
    live.connection(`${retry.error.message}; retry ${retry.attempt + 1} of ${retry.maxAttempts}…`);
  });
  current.addEventListener("heartbeat", (message) => {
    if (live.stopped) return;
    const beat = JSON.parse(message.data).heartbeat;
    live.connection(`live: still ${beat.activity} (${Math.round(parseFloat(beat.elapsed))} s)`);
  });
  current.addEventListener("error", (message) => {
    if (message.data && !live.stopped) live.failed(JSON.parse(message.data).error.message);
  });
}

function stop(live) {
  if (!live) return;
  live.stopped = true;
  if (live.source) live.source.close();
}

// -- the run panel -----------------------------------------------------------------------------

// The run's answer in words, shown first (above the plan) once the run succeeded.
function showAnswer(text) {
  $("#run-answer").textContent = text;
  $("#run-answer").hidden = !text;
}

function openRun(runId) {
  closeChat();
  stop(view);
  history.replaceState(null, "", `#run=${runId}`);
  view = {
    runId, lastSeq: 0, steps: new Map(), order: [], status: "", streaming: "",
    apply: applyToPanel,
    connection: (text) => { $("#connection").textContent = text; },
    delta: (text) => { view.streaming += text; showAnswer(view.streaming); },
    failed: (message) => { $("#run-error").textContent = message; },
  };
  const opened = view;
  showPanel("run");
  showActions("");
  $("#run-id").textContent = runId;
  for (const id of ["#run-prompt", "#run-error", "#planner"]) $(id).textContent = "";
  $("#run-result").textContent = "–";
  showAnswer("");
  $("#events").replaceChildren();
  $("#steps tbody").replaceChildren();
  api(`/v1/runs/${runId}`).then(({ run }) => { $("#run-prompt").textContent = run.prompt; }).catch((error) => {
    // No such run, or another key's: say so, and stop trying to stream it.
    if (error.status !== 404 || view !== opened) return;
    opened.missing = true;
    stop(opened);
    $("#run-error").textContent = error.message;
    $("#connection").textContent = "not found";
  });
  stream(view, 0);
}

function applyToPanel(kind, seq, event) {
  const entry = document.createElement("li");
  entry.value = seq;
  if (kind === "status_changed") {
    const change = event.statusChanged;
    view.status = change.status;
    showActions(change.status);
    badge($("#run-status"), change.status, "RUN_STATUS_");
    entry.textContent = `run ${short(change.status, "RUN_STATUS_")}`;
    if (change.error) $("#run-error").textContent = change.error.message;
    if (change.result !== undefined) $("#run-result").textContent = JSON.stringify(change.result, null, 2);
    showAnswer(change.answer || "");
    if (TERMINAL.has(change.status)) {
      view.source.close();
      $("#connection").textContent = "finished";
      loadRuns();
      // Replaying a run that was retried since: its stream goes on past this event.
      const finished = view;
      api(`/v1/runs/${encodeURIComponent(finished.runId)}`).then(({ run }) => {
        if (view === finished && !finished.stopped && Number(run.lastSeq) > finished.lastSeq) {
          stream(finished, finished.lastSeq);
        }
      }).catch(() => {});
    }
  } else if (kind === "turn_decided") {
    const turn = event.turnDecided.turn;
    view.streaming = "";
    const calls = turn.calls || [];
    $("#planner").textContent = `agent, turn ${turn.index}`;
    for (const call of calls) view.order.push(call.stepId);
    if (calls.length) {
      showAnswer("");
      entry.textContent = `turn ${turn.index}: ${calls.map((c) => `${c.stepId} ${c.tool}`).join(", ")}`;
    } else {
      entry.textContent = `turn ${turn.index}: ${turn.refusal ? `declined: ${turn.refusal}` : "answered"}`;
    }
  } else if (kind === "plan_created") {
    const plan = event.planCreated.plan;
    $("#planner").textContent = `by ${plan.planner}, ${plan.steps.length} step(s)`;
    for (const step of plan.steps) {
      view.order.push(step.id);
      renderStep({ stepId: step.id, tool: step.tool, arguments: step.arguments, status: "STEP_STATUS_PENDING" });
    }
    entry.textContent = `plan: ${plan.steps.map((s) => `${s.id} ${s.tool}`).join(", ")}`;
  } else {
    const step = event.stepUpdated.step;
    renderStep(step);
    entry.textContent = `${step.stepId} ${short(step.status, "STEP_STATUS_")} (attempt ${step.attempts || 0})`;
  }
  $("#events").append(entry);
}

function renderStep(step) {
  let row = view.steps.get(step.stepId);
  if (!row) {
    row = document.createElement("tr");
    row.dataset.stepId = step.stepId;
    // Each cell names its column: on a phone the rows are cards and the header is not shown.
    for (const label of STEP_COLUMNS) {
      const cell = document.createElement("td");
      cell.dataset.label = label;
      row.append(cell);
    }
    view.steps.set(step.stepId, row);
    $("#steps tbody").append(row);
  }
  const [id, tool, status, attempts, args, outcome] = row.children;
  id.textContent = step.stepId;
  tool.textContent = step.tool;
  status.replaceChildren(document.createElement("span"));
  badge(status.firstChild, step.status, "STEP_STATUS_");
  attempts.textContent = step.attempts || 0;
  args.replaceChildren(el("code", { textContent: json(shownArguments(step)) }));
  outcome.replaceChildren();
  if (step.status === "STEP_STATUS_AWAITING_APPROVAL") {
    outcome.append(...approvalControls(view.runId, step, $("#run-error")));
  } else if (step.error && step.status !== "STEP_STATUS_SUCCEEDED") {
    outcome.append(el("span", { className: "error", textContent: step.error.message }));
  } else if (step.output !== undefined) {
    outcome.append(el("code", { textContent: json(step.output) }));
  }
}

// Until a step starts, its arguments may still hold references to earlier outputs: say where
// the value will come from rather than show the template.
function shownArguments(step) {
  return step.status === "STEP_STATUS_PENDING" ? describeRefs(step.arguments) : step.arguments;
}

function describeRefs(value) {
  if (typeof value === "string") {
    return value.replace(/\{\{\s*steps\.([A-Za-z0-9_-]+)\.output[^}]*\}\}/g, "(from $1)");
  }
  if (Array.isArray(value)) return value.map(describeRefs);
  if (value && typeof value === "object") {
    const ref = typeof value.$ref === "string" && value.$ref.match(/^steps\.([A-Za-z0-9_-]+)\.output/);
    if (ref && Object.keys(value).length === 1) return `(from ${ref[1]})`;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, describeRefs(v)]));
  }
  return value;
}

// A person decides here: why the step waits, then Approve / Reject (Reject asks for a reason,
// and cancelling that question rejects nothing).
// The run's events then show what follows; errors go to `errorElement`.
function approvalControls(runId, step, errorElement) {
  const why = el("span", { className: "approval", textContent: step.approval?.reason || "needs approval" });
  const approve = el("button", { type: "button", className: "approve", textContent: "Approve" });
  const reject = el("button", { type: "button", className: "reject", textContent: "Reject" });
  const decideWith = (verb, body) => {
    approve.disabled = reject.disabled = true; // one decision; the step's next event redraws these
    decide(runId, step.stepId, verb, body, errorElement).finally(() => { approve.disabled = reject.disabled = false; });
  };
  approve.addEventListener("click", () => decideWith("approve", {}));
  reject.addEventListener("click", () => {
    const reason = window.prompt("Why reject it?");
    if (reason !== null) decideWith("reject", { reason }); // Cancel in that box: no decision
  });
  return [why, " ", approve, " ", reject];
}

function showActions(status) {
  $("#cancel").hidden = !status || TERMINAL.has(status);
  $("#retry").hidden = !["RUN_STATUS_FAILED", "RUN_STATUS_CANCELLED"].includes(status);
}

async function act(verb) {
  if (!view) return;
  const runId = view.runId;
  $("#run-error").textContent = "";
  try {
    await api(`/v1/runs/${encodeURIComponent(runId)}:${verb}`, { method: "POST" });
    if (verb === "retry") openRun(runId); // replays the run, then follows the retried part live
    loadRuns();
  } catch (error) {
    $("#run-error").textContent = error.message;
  }
}

// ApproveStep / RejectStep for a step awaiting approval.
async function decide(runId, stepId, verb, body, errorElement) {
  errorElement.textContent = "";
  try {
    const path = `/v1/runs/${encodeURIComponent(runId)}/steps/${encodeURIComponent(stepId)}:${verb}`;
    await api(path, { method: "POST", body: JSON.stringify(body) });
  } catch (error) {
    errorElement.textContent = error.message;
  }
}

// -- conversations (threads) -------------------------------------------------------------------

// A thread is named by its first message, kept in its metadata ("title") when the page creates
// it: ListThreads returns no turns. Metadata values must be printable, and at most 256 long.
function titleOf(prompt) {
  return Array.from(prompt.replace(/[\p{C}\p{Z}\s]+/gu, " ").trim()).slice(0, 80).join("");
}

function threadTitle(thread) {
  return thread.metadata?.title || `Conversation of ${new Date(thread.createTime).toLocaleString()}`;
}

function when(time) {
  const date = new Date(time);
  return date.toDateString() === new Date().toDateString()
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString();
}

const turnsText = (count = 0) => `${count} turn${count === 1 ? "" : "s"}`;

let threadsToken = "";
// Turns read at a time: the latest when a thread opens, then earlier ones on request.
const TURNS_PAGE = 20;

// The caller's threads, newest first (ListThreads' order), a page at a time ("more").
async function loadThreads(more = false) {
  try {
    const query = `page_size=20${more && threadsToken ? `&page_token=${encodeURIComponent(threadsToken)}` : ""}`;
    const { threads = [], nextPageToken = "" } = await api(`/v1/threads?${query}`);
    threadsToken = nextPageToken;
    const items = threads.map((thread) => {
      const item = el("li", {},
        el("span", { className: "text", textContent: threadTitle(thread) }),
        el("span", { className: "muted", textContent: `${turnsText(thread.turnCount)} · ${when(thread.updateTime)}` }));
      item.dataset.threadId = thread.threadId;
      item.title = `${turnsText(thread.turnCount)}, last ${new Date(thread.updateTime).toLocaleString()}`;
      item.addEventListener("click", () => openThread(thread.threadId));
      return item;
    });
    if (more) $("#threads").append(...items);
    else $("#threads").replaceChildren(...items);
    if (!$("#threads").children.length) {
      $("#threads").append(el("li", { className: "muted empty", textContent: "none yet" }));
    }
    $("#more-threads").hidden = !threadsToken;
    markOpenThread();
  } catch (error) {
    $("#form-error").textContent = error.message;
  }
}

function markOpenThread() {
  for (const item of $("#threads").children) {
    item.classList.toggle("current", Boolean(chat && item.dataset.threadId === chat.threadId));
  }
}

// Opens a conversation in the chat view; without `threadId`, a new one, created when its first
// message is sent (so "New conversation" alone leaves no empty thread behind).
function openThread(threadId) {
  stop(view);
  view = null;
  closeChat();
  const current = { threadId, turns: new Map(), live: null };
  chat = current;
  history.replaceState(null, "", threadId ? `#thread=${threadId}` : location.pathname);
  showPanel("chat");
  stepsWhenSeen.disconnect();
  $("#turns").replaceChildren();
  $("#chat-title").textContent = threadId ? "" : "New conversation";
  $("#chat-delete").hidden = !threadId;
  $("#chat-error").textContent = "";
  markOpenThread();
  updateComposer();
  if (threadId) refreshThread(current, true);
  else $("#chat-prompt").focus();
}

function closeChat() {
  if (!chat) return;
  stop(chat.live);
  chat = null;
  markOpenThread();
}

// Reads the thread (GetThread: its latest turns) into the chat view: each turn's prompt, status
// and answer, the steps of finished turns once they scroll into view (GetRun), and follows the
// first unfinished turn live (later ones are queued behind it, and followed when it ends).
async function refreshThread(current, scroll = false) {
  let thread;
  let nextPageToken;
  try {
    const path = `/v1/threads/${encodeURIComponent(current.threadId)}?page_size=${TURNS_PAGE}`;
    ({ thread, nextPageToken = "" } = await api(path));
  } catch (error) {
    if (chat !== current) return;
    $("#chat-error").textContent = error.status === 404
      ? "No such conversation (deleted, or another API key's)."
      : error.message;
    return;
  }
  if (chat !== current) return;
  $("#chat-title").textContent = threadTitle(thread);
  const turns = thread.turns || [];
  stickToLatest(scroll, () => { for (const turn of turns) renderTurn(current, turn); });
  // The first read says whether there are earlier turns; the token is a place in the thread,
  // so it stays good as new turns are added.
  if (current.earlierToken === undefined) showEarlier(current, nextPageToken);
  const unfinished = turns.find((turn) => !TERMINAL.has(turn.status));
  if (unfinished && current.live?.runId !== unfinished.runId) followTurn(current, unfinished.runId);
  updateComposer();
}

// A long thread's earlier turns, a page at a time, above those shown (keeping the view in place).
function showEarlier(current, token) {
  current.earlierToken = token;
  let row = $("#turns li.earlier");
  if (!token) {
    if (row) row.remove();
  } else if (!row) {
    const button = el("button", { type: "button", className: "more", textContent: "earlier turns…" });
    button.addEventListener("click", () => loadEarlier(current, button));
    row = el("li", { className: "earlier" }, button);
    $("#turns").prepend(row);
  }
}

async function loadEarlier(current, button) {
  button.disabled = true;
  try {
    const query = `page_size=${TURNS_PAGE}&page_token=${encodeURIComponent(current.earlierToken)}`;
    const { thread, nextPageToken = "" } = await api(`/v1/threads/${encodeURIComponent(current.threadId)}?${query}`);
    if (chat !== current) return;
    const list = $("#turns");
    const fromEnd = list.scrollHeight - list.scrollTop;
    for (const turn of thread.turns || []) renderTurn(current, turn);
    showEarlier(current, nextPageToken);
    list.scrollTop = list.scrollHeight - fromEnd;
  } catch (error) {
    $("#chat-error").textContent = error.message;
  } finally {
    button.disabled = false;
  }
}

// A finished turn's steps are read (GetRun) when it comes into view, not all at once when a long
// thread opens. Re-observing reports a turn that is already in view at once.
const stepsWhenSeen = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const item = chat?.turns.get(entry.target.dataset.runId);
    if (entry.isIntersecting && item?.li === entry.target) {
      stepsWhenSeen.unobserve(entry.target);
      loadTurnSteps(chat, item);
    }
  }
}, { root: $("#turns"), rootMargin: "200px 0px" });

function wantSteps(item) {
  stepsWhenSeen.unobserve(item.li);
  stepsWhenSeen.observe(item.li);
}

// A turn's entry in the chat: the prompt as the person's bubble, then its status, its steps
// (one compact line each) and the answer. Turns are kept in their thread order.
function turnItem(current, runId, number) {
  let item = current.turns.get(runId);
  if (item) return item;
  item = {
    runId, number, statusValue: "", stepsLoaded: false, rows: new Map(),
    li: el("li", { className: "turn" }),
    prompt: el("p", { className: "bubble mine" }),
    status: el("span", { className: "badge" }),
    connection: el("span", { className: "muted" }),
    steps: el("ul", { className: "turn-steps" }),
    answer: el("p", { className: "bubble reply", hidden: true }),
    error: el("p", { className: "error" }),
  };
  const details = el("a", { href: `#run=${runId}`, textContent: "details" });
  details.addEventListener("click", (event) => { event.preventDefault(); openRun(runId); });
  item.li.dataset.runId = runId;
  item.li.dataset.turn = number;
  item.li.append(
    item.prompt,
    el("div", { className: "turn-meta" }, item.status, el("span", { className: "muted", textContent: `turn ${number}` }), item.connection, details),
    item.steps, item.answer, item.error,
  );
  current.turns.set(runId, item);
  const later = [...$("#turns").children].find((li) => Number(li.dataset.turn) > number);
  $("#turns").insertBefore(item.li, later || null);
  return item;
}

function renderTurn(current, turn) {
  const item = turnItem(current, turn.runId, turn.turn);
  item.prompt.textContent = turn.prompt;
  // The followed turn's own events are newer than what GetThread read.
  if (current.live?.runId !== turn.runId) {
    setTurnStatus(item, turn.status);
    showTurnAnswer(item, turn.answer || "");
    item.error.textContent = turn.error?.message || "";
    if (TERMINAL.has(turn.status) && !item.stepsLoaded) wantSteps(item);
  }
  return item;
}

function setTurnStatus(item, status) {
  item.statusValue = status;
  badge(item.status, status, "RUN_STATUS_");
  if (status === "RUN_STATUS_QUEUED") item.status.title = "runs when the turn before it has finished";
}

function showTurnAnswer(item, text) {
  item.answer.textContent = text;
  item.answer.hidden = !text;
}

async function loadTurnSteps(current, item) {
  if (item.stepsLoaded || current.live?.runId === item.runId) return;
  item.stepsLoaded = true;
  try {
    const { run } = await api(`/v1/runs/${encodeURIComponent(item.runId)}`);
    if (chat !== current || current.live?.runId === item.runId) return;
    stickToLatest(false, () => { for (const step of run.steps || []) renderTurnStep(item, step); });
  } catch {
    item.stepsLoaded = false; // read again with the next refresh
  }
}

// One step as one line: status, tool, then its output, error or arguments (cut short; the
// whole in its tooltip, and on the run's "details" page); a step awaiting approval gets its
// Approve / Reject buttons here.
function renderTurnStep(item, step) {
  let row = item.rows.get(step.stepId);
  if (!row) {
    row = el("li");
    row.dataset.stepId = step.stepId;
    item.rows.set(step.stepId, row);
    item.steps.append(row);
  }
  const status = el("span");
  badge(status, step.status, "STEP_STATUS_");
  let what = json(shownArguments(step));
  let className = "what";
  if (step.error && step.status !== "STEP_STATUS_SUCCEEDED") {
    what = step.error.message;
    className = "what error";
  } else if (step.output !== undefined) {
    what = json(step.output);
  }
  const line = el("div", { className: "step-line" },
    status, el("span", { className: "tool", textContent: step.tool }),
    el("code", { className, textContent: what, title: what }));
  row.replaceChildren(line);
  row.classList.toggle("waiting", step.status === "STEP_STATUS_AWAITING_APPROVAL");
  if (step.status === "STEP_STATUS_AWAITING_APPROVAL") {
    row.append(el("div", { className: "decide" }, ...approvalControls(item.runId, step, item.error)));
  }
}

// Follows one turn of the open thread from its events (the same stream as the run panel's).
function followTurn(current, runId) {
  stop(current.live);
  const item = current.turns.get(runId);
  const live = {
    runId, lastSeq: 0, status: "", streaming: "",
    apply: (kind, seq, event) => stickToLatest(false, () => applyToTurn(current, live, item, kind, event)),
    connection: (text) => { item.connection.textContent = text === "live" ? "" : text; },
    delta: (text) => { live.streaming += text; stickToLatest(false, () => showTurnAnswer(item, live.streaming)); },
    failed: (message) => { item.error.textContent = message; },
  };
  current.live = live;
  item.steps.replaceChildren(); // drawn again from the events
  item.rows.clear();
  item.stepsLoaded = true;
  stream(live, 0);
}

function applyToTurn(current, live, item, kind, event) {
  if (kind === "status_changed") {
    const change = event.statusChanged;
    live.status = change.status;
    setTurnStatus(item, change.status);
    item.error.textContent = change.error?.message || "";
    showTurnAnswer(item, change.answer || "");
    updateComposer();
    if (TERMINAL.has(change.status)) {
      stop(live);
      if (current.live === live) current.live = null;
      item.connection.textContent = "";
      // The next turn, if one was queued behind this one, starts now: read and follow it.
      refreshThread(current);
      loadThreads();
      loadRuns();
    }
  } else if (kind === "turn_decided") {
    live.streaming = "";
    if ((event.turnDecided.turn.calls || []).length) showTurnAnswer(item, "");
  } else if (kind === "plan_created") {
    for (const step of event.planCreated.plan.steps) {
      renderTurnStep(item, { stepId: step.id, tool: step.tool, arguments: step.arguments, status: "STEP_STATUS_PENDING" });
    }
  } else if (kind === "step_updated") {
    renderTurnStep(item, event.stepUpdated.step);
  }
}

// Keeps the latest turn in view as it grows, unless the person scrolled up to read earlier ones
// (`always`: scroll to it regardless, as when a conversation opens or a message is sent).
function stickToLatest(always, change) {
  const list = $("#turns");
  const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 48;
  change();
  if (always || atEnd) list.scrollTop = list.scrollHeight;
}

// While a turn has not finished, a new message is queued behind it (MULTITASK_STRATEGY_ENQUEUE):
// the button and the line above it say so before it is sent.
function updateComposer() {
  const pending = chat ? [...chat.turns.values()].filter((item) => !TERMINAL.has(item.statusValue)) : [];
  const waiting = pending.some((item) => item.statusValue === "RUN_STATUS_WAITING");
  $("#chat-send").textContent = pending.length ? "Queue" : "Send";
  $("#chat-busy").textContent = !pending.length ? ""
    : waiting ? "A step waits for your approval: a message sent now is queued and runs once that turn has finished."
      : "A turn is still running: a message sent now is queued and runs after it.";
}

async function sendMessage() {
  const current = chat;
  const prompt = $("#chat-prompt").value.trim();
  if (!current || !prompt || $("#chat-send").disabled) return; // (Enter again while sending)
  $("#chat-error").textContent = "";
  $("#chat-send").disabled = true;
  try {
    if (!current.threadId) {
      const body = { metadata: { title: titleOf(prompt) } };
      const { thread } = await api("/v1/threads", { method: "POST", body: JSON.stringify(body) });
      current.threadId = thread.threadId;
      if (chat === current) {
        history.replaceState(null, "", `#thread=${thread.threadId}`);
        $("#chat-title").textContent = threadTitle(thread);
        $("#chat-delete").hidden = false;
      }
    }
    const { run } = await api(`/v1/threads/${encodeURIComponent(current.threadId)}/runs`, {
      method: "POST",
      body: JSON.stringify({ prompt, multitaskStrategy: "MULTITASK_STRATEGY_ENQUEUE" }),
    });
    if (chat === current) {
      $("#chat-prompt").value = "";
      stickToLatest(true, () => renderTurn(current, { runId: run.runId, turn: run.threadTurn, prompt: run.prompt, status: run.status }));
      // A queued message is followed once the turns before it have finished.
      if (!current.live) followTurn(current, run.runId);
      updateComposer();
    }
    loadThreads();
  } catch (error) {
    if (chat === current) $("#chat-error").textContent = error.message;
  } finally {
    $("#chat-send").disabled = false;
  }
}

async function deleteThread() {
  const current = chat;
  if (!current?.threadId || !window.confirm("Delete this conversation and all of its turns?")) return;
  try {
    await api(`/v1/threads/${encodeURIComponent(current.threadId)}`, { method: "DELETE" });
  } catch (error) {
    if (error.status !== 404) {
      $("#chat-error").textContent = error.message;
      return;
    }
  }
  if (chat === current) leaveChat();
  loadThreads();
  loadRuns();
}

// On a phone the run takes the whole window; "Back" returns to the form and the lists.
function leaveRun() {
  stop(view);
  view = null;
  history.replaceState(null, "", location.pathname);
  showPanel("welcome");
}

function leaveChat() {
  closeChat();
  history.replaceState(null, "", location.pathname);
  showPanel("welcome");
}

// -- wiring ------------------------------------------------------------------------------------

$("#cancel").addEventListener("click", () => act("cancel"));
$("#run-back").addEventListener("click", leaveRun);
document.addEventListener("visibilitychange", () => { if (!document.hidden) loadHealth(); });
$("#retry").addEventListener("click", () => act("retry"));

$("#new-run").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("#form-error").textContent = "";
  const prompt = $("#prompt").value.trim();
  if (!prompt) return;
  try {
    const { run } = await api("/v1/runs", { method: "POST", body: JSON.stringify({ prompt }) });
    openRun(run.runId);
    loadRuns();
  } catch (error) {
    $("#form-error").textContent = error.message;
  }
});
$("#api-key").value = localStorage.getItem(KEY) || "";
$("#api-key").addEventListener("change", (event) => {
  localStorage.setItem(KEY, event.target.value.trim());
  loadRuns();
  loadThreads();
});
$("#refresh").addEventListener("click", loadRuns);
$("#new-thread").addEventListener("click", () => openThread(null));
$("#more-threads").addEventListener("click", () => loadThreads(true));
$("#chat-back").addEventListener("click", leaveChat);
$("#chat-delete").addEventListener("click", deleteThread);
$("#chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sendMessage();
});
// Enter sends, as in other chats; Shift+Enter starts a new line.
$("#chat-prompt").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("#chat-form").requestSubmit();
  }
});

loadHealth();
loadRuns();
loadThreads();
const initialRun = location.hash.match(/run=([0-9a-f]+)/);
const initialThread = location.hash.match(/thread=([0-9a-f]+)/);
if (initialRun) openRun(initialRun[1]);
else if (initialThread) openThread(initialThread[1]);
