# Two entry points for a fresh machine: `make up` and `make test`. Each bootstraps .venv
# (re-installed whenever pyproject.toml changes) before doing anything else.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: up test test-split lint protos check-protos buf chromium eval eval-planner eval-agent bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit("agentrt needs Python 3.11+, found " + sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[server,llm,dev]'
	touch $(STAMP)

up: $(STAMP)
	$(BIN)/agentrt up

# The whole suite: lint, generated-code drift, proto lint/format, then every test, on two
# pytest-xdist workers (most tests wait on servers and processes, not the CPU: two workers take
# ~10 minutes on two cores where one took ~18). A file stays on one worker (module fixtures: the
# local model, the browser); tests/conftest.py starts the longest files first.
PYTEST_WORKERS ?= 2
test: $(STAMP) lint check-protos buf chromium
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The end-to-end tests again, on `agentrt up --split` (one process per service) instead of the
# one-process default: the same suite against both topologies (.ci/run runs both targets).
test-split: $(STAMP) chromium
	AGENTRT_TEST_TOPOLOGY=split $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder tests/e2e

# The browser test drives Debian's chromium (Playwright never downloads a browser here). Install
# it when missing and we can (root with apt); otherwise that test is skipped and says why.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium for the browser test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium missing and cannot be installed here: the browser test will be skipped"; fi; }

# Throughput, latency, overhead, watch latency, memory and cold start against the real services;
# then agentrt next to DBOS (PostgreSQL) and LangGraph (SqliteSaver, and no checkpointer) on the
# same work, in interleaved batches, as ratios (bench/compare.py); then runs/s with 1, 2 and 3
# executor replicas on PostgreSQL (bench/scaleout.py); last, where each service spends its CPU
# (py-spy) and where one run's latency goes (bench/hotspots.py); and the rule planner's time per
# prompt on every eval message (bench/planning.py); last, what the worst log lines cost
# (bench/logline.py).
bench: $(STAMP)
	$(BIN)/python bench/bench.py $(BENCH_ARGS)
	$(BIN)/python bench/compare.py $(COMPARE_ARGS)
	$(BIN)/python bench/scaleout.py $(SCALEOUT_ARGS)
	$(BIN)/python bench/hotspots.py $(HOTSPOTS_ARGS)
	$(BIN)/python bench/planning.py
	$(BIN)/python bench/logline.py

# The rule planner through the whole system, no LLM: everyday one-message requests
# (evals/requests/), then multi-turn follow-up conversations (evals/followups/); each with its
# tuning and its held-out figure (only the tuning part's misses are shown one by one).
eval: $(STAMP)
	$(BIN)/python scripts/eval_requests.py
	$(BIN)/python scripts/eval_followups.py

# The planner prompt set through the rule planner and the local model (downloaded once, cached),
# then the agent-mode prompts through the agent loop. EVAL_MODEL_SIZE=1.5b for the bigger model.
EVAL_MODEL_SIZE ?= 0.5b
eval-planner: $(STAMP)
	$(BIN)/python scripts/eval_planner.py --size $(EVAL_MODEL_SIZE)
	$(BIN)/python scripts/eval_agent.py --size $(EVAL_MODEL_SIZE)

# The agent on the local model (downloaded once, cached), under the default approval policy (a
# simulated careful person decides each call that waits) and under none: right, refused, wrong
# side effects, seconds per run. EVAL_AGENT_SIZE=0.5b for the smaller model.
EVAL_AGENT_SIZE ?= 1.5b
eval-agent: $(STAMP)
	$(BIN)/python scripts/eval_agent.py --size $(EVAL_AGENT_SIZE)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

protos: $(STAMP)
	$(BIN)/python scripts/gen_protos.py

check-protos: $(STAMP)
	$(BIN)/python scripts/gen_protos.py --check

# buf comes from npm (@bufbuild/buf, pinned with integrity hashes in package-lock.json).
# `npm install`, not `npm ci`: the registry mirror we use serves only the linux builds of buf's
# per-platform optional packages, so the lock cannot list the others and `npm ci` would refuse it.
node_modules/.bin/buf: package.json package-lock.json
	npm install --no-audit --no-fund --loglevel=error
	touch $@

buf: node_modules/.bin/buf
	node_modules/.bin/buf lint
	node_modules/.bin/buf format --diff --exit-code

clean:
	rm -rf $(VENV) node_modules .pytest_cache .ruff_cache
