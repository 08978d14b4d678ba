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

async function api(path, options = {}) {
  const response = await fetch(path, {
    ...options,
    headers: { "Content-Type": "application/json", ...authHeaders(), ...(options.headers || {}) },
  });
  const body = response.status === 204 ? null : await response.json();
  if (!response.ok) throw new Error(body?.error?.message || response.statusText);
  return body;
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

function openRun(runId) {
  if (source) source.close();
  history.replaceState(null, "", `#run=${runId}`);
  view = { runId, lastSeq: 0, steps: new Map(), order: [] };
  $("#run").hidden = false;
  $("#run-id").textContent = runId;
  for (const id of ["#run-prompt", "#run-error", "#planner"]) $(id).textContent = "";
  $("#run-result").textContent = "–";
  $("#events").replaceChildren();
  $("#steps tbody").replaceChildren();
  api(`/v1/runs/${runId}`).then(({ run }) => { $("#run-prompt").textContent = run.prompt; }).catch(() => {});

  const key = localStorage.getItem(KEY);
  const url = `/v1/runs/${encodeURIComponent(runId)}/events?after_seq=0${key ? `&access_token=${encodeURIComponent(key)}` : ""}`;
  source = new EventSource(url);
  const current = source;
  source.onopen = () => { $("#connection").textContent = "live"; };
  source.onerror = () => {
    if (current.readyState !== EventSource.CLOSED) $("#connection").textContent = "reconnecting…";
  };
  for (const kind of ["status_changed", "plan_created", "step_updated"]) {
    source.addEventListener(kind, (message) => apply(kind, Number(message.lastEventId), JSON.parse(message.data)));
  }
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
    badge($("#run-status"), change.status, "RUN_STATUS_");
    entry.textContent = `run ${short(change.status, "RUN_STATUS_")}`;
    if (change.error) $("#run-error").textContent = change.error.message;
    if (change.result !== undefined) $("#run-result").textContent = JSON.stringify(change.result, null, 2);
    if (TERMINAL.has(change.status)) {
      source.close();
      $("#connection").textContent = "finished";
      loadRuns();
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
  args.append(Object.assign(document.createElement("code"), { textContent: json(step.arguments) }));
  outcome.innerHTML = "";
  if (step.error && step.status !== "STEP_STATUS_SUCCEEDED") {
    outcome.append(Object.assign(document.createElement("span"), { className: "error", textContent: step.error.message }));
  } else if (step.output !== undefined) {
    outcome.append(Object.assign(document.createElement("code"), { textContent: json(step.output) }));
  }
}

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
