"""The Helm chart's probes, run against real services the way the kubelet runs them: each gRPC
probe of each rendered Deployment is a grpc.health.v1 Check of that probe's service, sent with no
credential to a service that requires the internal one for everything else (API keys on); the
local model's exec probe is run as written."""

from __future__ import annotations

import http.server
import shlex
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pydantic import SecretStr

from agentrt.config import Settings
from tests.conftest import INTERNAL_TOKEN, Stack, start_stack
from tests.e2e.procs import free_ports
from tests.keys import key_for
from tests.unit.test_helm_chart import by_kind, component, render, values_of


@pytest.fixture
async def keyed(settings: Settings) -> AsyncIterator[Stack]:
    built = await start_stack(
        settings.replace(api_keys={"ci": SecretStr(key_for("ci"))}, internal_token=INTERNAL_TOKEN)
    )
    yield built
    await built.close()


def probes(deployment: dict[str, Any]) -> dict[str, dict[str, Any]]:
    main = deployment["spec"]["template"]["spec"]["containers"][0]
    return {kind: main[kind] for kind in ("startupProbe", "readinessProbe", "livenessProbe")}


async def test_every_grpc_probe_of_the_chart_answers_serving_without_a_credential(keyed: Stack) -> None:
    docs = render(values_of("production"))
    checked = 0
    for deployment in by_kind(docs, "Deployment").values():
        name = component(deployment)
        for kind, probe in probes(deployment).items():
            # The kubelet dials the pod's IP at the probe's port; here each service is on port 0.
            async with grpc.aio.insecure_channel(f"127.0.0.1:{keyed.port(name)}") as channel:
                answer = await health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(service=probe["grpc"]["service"]), timeout=5
                )
            assert answer.status == health_pb2.HealthCheckResponse.SERVING, (name, kind, probe)
            checked += 1
    assert checked == 12
    # Everything else on those ports still needs the credential the probe does not have.
    async with grpc.aio.insecure_channel(f"127.0.0.1:{keyed.port('executor')}") as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await channel.unary_unary("/agentrt.v1.RunService/ListRuns")(b"", timeout=5)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_the_local_models_probe_passes_when_it_answers_and_fails_when_it_does_not() -> None:
    (port,) = free_ports(1)
    values = {**values_of("local-model"), "model": {"local": {"enabled": True, "port": port}}}
    planner = next(d for d in by_kind(render(values), "Deployment").values() if component(d) == "planner")
    model = next(c for c in planner["spec"]["template"]["spec"]["containers"] if c["name"] == "model")
    command = model["livenessProbe"]["exec"]["command"]
    assert command == model["startupProbe"]["exec"]["command"]
    assert command[0] == "python"
    run = [sys.executable, *command[1:]]  # the image's python is first on its PATH

    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/health" else 404)
            self.end_headers()
            self.wfile.write(b'{"status": "ok"}')

        def log_message(self, *args: object) -> None:
            pass

    assert subprocess.run(run, check=False, capture_output=True, timeout=30).returncode != 0, shlex.join(run)
    server = http.server.HTTPServer(("127.0.0.1", port), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        done = subprocess.run(run, check=False, capture_output=True, timeout=30)
        assert done.returncode == 0, done.stderr
    finally:
        server.shutdown()
        server.server_close()
