"""schemathesis fuzzes the REST API from its own /openapi.json against the real processes
(`agentrt up`), with every check it has: the document must state what the server enforces (a
request it calls valid is accepted, one it calls invalid is refused), responses must match it,
and so must 405s, auth and who sees whose runs.

Every check applies here, so none is left out: API keys are on, as two principals (alice and bob,
plain users) given to schemathesis as Web Fuzzing Commons identities and as peers, so that
ignored_auth, missing_required_header and object_level_authorization have something to check
(each must not see the other's runs). The rate limits are raised out of the way: a 429 is an
accepted answer, but one that tests nothing. The number of examples is bounded and the seed fixed,
so the run is the same each time.

Its schemathesis runs with schemathesis_hooks.py, which has Hypothesis build each regex
character class once: nearly all of the run's time went into building the printable characters'
class again and again (that file says how it was found), not into the server answering.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.procs import BIN, start_system
from tests.keys import key_for

pytestmark = pytest.mark.e2e

KEYS = {"alice": key_for("alice"), "bob": key_for("bob")}
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")
# Fuzzing and the stateful phase take this many examples per operation and scenarios; every phase
# and check runs (the coverage phase tries each field's boundaries whatever this says). Measured
# on 2 shared cores, back to back (the test with `agentrt up`'s start; schemathesis' phases):
#   6 examples, without the hook: 124 s (coverage 40 s, fuzzing 65 s, stateful 14 s), 896 cases
#  20 examples, without the hook: 154 s (coverage 41 s, fuzzing 90 s, stateful 18 s), 1175 cases
#  20 examples, with the hook:     21 s (coverage 8 s, fuzzing 6 s, stateful 2 s), the same 1175
#  50 examples, with the hook:     26 s (coverage 7 s, fuzzing 13 s, stateful 2 s), 1540 cases
# The seed is fixed: the same run each time.
MAX_EXAMPLES = 50
SEED = 1


def test_generated_requests_pass_every_schemathesis_check(tmp_path: Path) -> None:
    identities = {
        "schemaVersion": "1.0.0",
        "auth": [
            {"name": name, "fixedHeaders": [{"name": "Authorization", "value": f"Bearer {key}"}]}
            for name, key in KEYS.items()
        ],
    }
    (tmp_path / "identities.json").write_text(json.dumps(identities))
    (tmp_path / "schemathesis.toml").write_text(
        '[auth.wfc]\npath = "identities.json"\npeers = ["alice", "bob"]\n'
    )
    system = start_system(
        tmp_path / "data",
        tmp_path / "up.log",
        AGENTRT_API_KEYS=json.dumps(KEYS),
        AGENTRT_RATE_LIMIT_RPS="100000",
        AGENTRT_RATE_LIMIT_BURST="100000",
        # ignored_auth sends wrong keys on purpose: past this many an address would get 429s.
        AGENTRT_AUTH_FAILURE_BURST="100000",
    )
    try:
        result = subprocess.run(
            [
                str(BIN / "schemathesis"),
                "--config-file",
                str(tmp_path / "schemathesis.toml"),
                "run",
                f"{system.http}/openapi.json",
                "--checks",
                "all",
                "--max-examples",
                str(MAX_EXAMPLES),
                "--seed",
                str(SEED),
                # Health checks judge the generator's speed (too_slow, filter_too_much), not the API.
                "--suppress-health-check",
                "all",
            ],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env={**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS)},
            timeout=540,
            check=False,
        )
    finally:
        system.stop()
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-8000:]
    # "1096 generated, 1096 passed, 15 skipped": every generated case passed, and there were many.
    counts = re.search(r"(\d+) generated, (\d+) passed", output)
    assert counts is not None, output[-3000:]
    generated, passed = int(counts[1]), int(counts[2])
    assert generated == passed and generated > 500, counts[0]
    # The hook was loaded and did its work (else this run takes several times as long).
    built = re.search(r"regex classes: (\d+) built, (\d+) reused", output)
    assert built is not None and int(built[2]) > 0, output[-3000:]
