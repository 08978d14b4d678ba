// The live run page: submit a prompt, then render the run purely from its Server-Sent Events.
// Every event carries the full state of what changed (status, plan, step), so the page never
// polls; EventSource reconnects by itself with Last-Event-ID, and events are applied once by seq.
"use strict";

const $ = (selector) => document.querySelector(selector);
const KEY = "agentrt.apiKey";
const TERMINAL = new Set(["RUN_STATUS_SUCCEEDED", "RUN_STATUS_FAILED", "RUN_STATUS_CANCELLED"]);
let source = null;
let view = null;

const short = (value, prefix) => (value || "").replace(prefix, "").toLowerCase();
const json = (value) => (value === undefined ? "" : JSON.stringify(value));

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

async function loadHealth() {
  try {
    const response = await fetch("/healthz");
    const body = await response.json();
    badge($("#health"), body.status, "");
    $("#health").title = Object.entries(body.services).map(([k, v]) => `${k}: ${v}`).join("\n");
  } catch {
    badge($("#health"), "UNREACHABLE", "");
  }
}

// The run's answer in words, shown first (above the plan) once the run succeeded.
function showAnswer(text) {
  $("#run-answer").textContent = text;
  $("#run-answer").hidden = !text;
}

function openRun(runId) {
  if (source) source.close();
  history.replaceState(null, "", `#run=${runId}`);
  view = { runId, lastSeq: 0, steps: new Map(), order: [], status: "" };
  $("#run").hidden = false;
  $("#welcome").hidden = true;
  showActions("");
  $("#run-id").textContent = runId;
  for (const id of ["#run-prompt", "#run-error", "#planner"]) $(id).textContent = "";
  $("#run-result").textContent = "–";
  showAnswer("");
  $("#events").replaceChildren();
  $("#steps tbody").replaceChildren();
  api(`/v1/runs/${runId}`).then(({ run }) => { $("#run-prompt").textContent = run.prompt; }).catch((error) => {
    // No such run, or another key's: say so, and stop trying to stream it.
    if (error.status !== 404 || !view || view.runId !== runId) return;
    view.missing = true;
    if (source) source.close();
    $("#run-error").textContent = error.message;
    $("#connection").textContent = "not found";
  });
  stream(runId, 0);
}

// The run's events from after `afterSeq`. EventSource retries dropped connections itself, but
// gives up on an HTTP error (a 429 under a tight rate limit): then wait, and open it again from
// the last event applied.
function stream(runId, afterSeq, failures = 0) {
  const key = localStorage.getItem(KEY);
  const url = `/v1/runs/${encodeURIComponent(runId)}/events?after_seq=${afterSeq}${key ? `&access_token=${encodeURIComponent(key)}` : ""}`;
  source = new EventSource(url);
  const current = source;
  source.onopen = () => { $("#connection").textContent = "live"; setWaiting(""); };
  source.onerror = () => {
    if (current.readyState !== EventSource.CLOSED) {
      $("#connection").textContent = "reconnecting…";
      return;
    }
    if (!view || view.runId !== runId || view.missing || TERMINAL.has(view.status) || source !== current) return;
    const seconds = Math.min(2 ** failures, 16);
    $("#connection").textContent = `waiting ${seconds}s to reconnect (rate limited or unreachable)…`;
    setTimeout(() => {
      if (view && view.runId === runId && source === current) stream(runId, view.lastSeq, failures + 1);
    }, seconds * 1000);
  };
  for (const kind of ["status_changed", "plan_created", "step_updated", "turn_decided"]) {
    source.addEventListener(kind, (message) => apply(kind, Number(message.lastEventId), JSON.parse(message.data)));
  }
  // Agent mode: the model's words as it writes them. Transient (no id, never replayed): the
  // stored turn_decided event, or the run's answer, replaces them.
  source.addEventListener("text_delta", (message) => {
    if (!view || view.runId !== runId) return;
    view.streaming = (view.streaming || "") + JSON.parse(message.data).textDelta.text;
    showAnswer(view.streaming);
  });
  source.addEventListener("error", (message) => {
    if (message.data) $("#run-error").textContent = JSON.parse(message.data).error.message;
  });
}

function apply(kind, seq, event) {
  if (!view || seq <= view.lastSeq) return; // already applied (a replay after reconnecting)
  view.lastSeq = seq;
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
      source.close();
      $("#connection").textContent = "finished";
      loadRuns();
      // Replaying a run that was retried since: its stream goes on past this event.
      const { runId } = view;
      api(`/v1/runs/${encodeURIComponent(runId)}`).then(({ run }) => {
        if (view && view.runId === runId && Number(run.lastSeq) > view.lastSeq) stream(runId, view.lastSeq);
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
    for (let i = 0; i < 6; i++) row.append(document.createElement("td"));
    view.steps.set(step.stepId, row);
    $("#steps tbody").append(row);
  }
  const [id, tool, status, attempts, args, outcome] = row.children;
  id.textContent = step.stepId;
  tool.textContent = step.tool;
  status.replaceChildren(document.createElement("span"));
  badge(status.firstChild, step.status, "STEP_STATUS_");
  attempts.textContent = step.attempts || 0;
  args.innerHTML = "";
  // Until a step starts, its arguments may still hold references to earlier outputs: say where
  // the value will come from rather than show the template.
  const shown = step.status === "STEP_STATUS_PENDING" ? describeRefs(step.arguments) : step.arguments;
  args.append(Object.assign(document.createElement("code"), { textContent: json(shown) }));
  outcome.innerHTML = "";
  if (step.status === "STEP_STATUS_AWAITING_APPROVAL") {
    // A person decides here: why it waits, then Approve / Reject (with a reason).
    const why = Object.assign(document.createElement("span"), { className: "approval", textContent: step.approval?.reason || "needs approval" });
    const approve = Object.assign(document.createElement("button"), { className: "approve", textContent: "Approve" });
    const reject = Object.assign(document.createElement("button"), { className: "reject", textContent: "Reject" });
    approve.addEventListener("click", () => decide(step.stepId, "approve", {}));
    reject.addEventListener("click", () => decide(step.stepId, "reject", { reason: window.prompt("Why reject it?") || "" }));
    outcome.append(why, " ", approve, " ", reject);
    return;
  }
  if (step.error && step.status !== "STEP_STATUS_SUCCEEDED") {
    outcome.append(Object.assign(document.createElement("span"), { className: "error", textContent: step.error.message }));
  } else if (step.output !== undefined) {
    outcome.append(Object.assign(document.createElement("code"), { textContent: json(step.output) }));
  }
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

// ApproveStep / RejectStep for a step awaiting approval; the run's events then show what follows.
async function decide(stepId, verb, body) {
  if (!view) return;
  $("#run-error").textContent = "";
  try {
    const path = `/v1/runs/${encodeURIComponent(view.runId)}/steps/${encodeURIComponent(stepId)}:${verb}`;
    await api(path, { method: "POST", body: JSON.stringify(body) });
  } catch (error) {
    $("#run-error").textContent = error.message;
  }
}

$("#cancel").addEventListener("click", () => act("cancel"));
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
});
$("#refresh").addEventListener("click", loadRuns);

loadHealth();
loadRuns();
const initial = location.hash.match(/run=([0-9a-f]+)/);
if (initial) openRun(initial[1]);
