"""`agentrt up` (embedded.py: one process, the default) and `agentrt up --split`: one process
per service on one machine, as a cluster runs them.

--split starts each service as `python -m agentrt serve NAME`, waits until each answers grpc.health.v1
SERVING, prints the endpoints, and stops them all (SIGTERM, then SIGKILL after a grace period)
on Ctrl-C or SIGTERM, or as soon as any of them exits on its own.

Only the gateway binds AGENTRT_HOST; the others (and the metrics ports) bind AGENTRT_INTERNAL_HOST,
loopback by default. With API keys configured and no AGENTRT_INTERNAL_TOKEN, `up` gives its four
services a random internal credential, kept in the data directory (mode 0600) so that the
operator's `agentrt tools` commands on this machine, which talk to tools_svc directly, find it.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import grpc

from agentrt.cli.embedded import START_ORDER, print_up, up_embedded
from agentrt.config import Settings
from agentrt.core.health import probe
from agentrt.core.principals import INTERNAL_HEADER
from agentrt.server.grpcserver import bind_problem

# Where `up` keeps the internal credential it made (in AGENTRT_DATA_DIR).
TOKEN_FILE = "internal-token"


@dataclass
class Child:
    name: str
    port: int
    process: subprocess.Popen[bytes]


def ports(settings: Settings) -> dict[str, int]:
    return {
        "tools": settings.tools_port,
        "planner": settings.planner_port,
        "executor": settings.executor_port,
        "gateway": settings.gateway.gateway_port,
    }


def metrics_ports(settings: Settings) -> dict[str, int]:
    """Each service's metrics port, from its section; 0 (off) included."""
    return {name: getattr(getattr(settings, name), f"{name}_metrics_port") for name in START_ORDER}


def busy_port(settings: Settings) -> str | None:
    """The first port `up` needs that something else already holds, as one line naming the
    setting that moves it; None when all are free. Checked before any service starts, so a
    second `agentrt up` (or any other program on those ports) is never mistaken for ours."""
    wanted = [*ports(settings).items(), ("http", settings.gateway.http_port)]
    wanted += [(f"{name}_metrics", port) for name, port in metrics_ports(settings).items() if port]
    for name, port in wanted:
        host = settings.gateway.host if name in ("gateway", "http") else settings.internal_host
        if why := bind_problem(host, port):
            variable = f"AGENTRT_{name.upper()}_PORT"
            return (
                f"agentrt up: port {port} ({variable}) on {host} is in use ({why}); "
                f"stop what holds it (another agentrt up?) or set {variable} to a free port"
            )
    return None


def is_serving(channel: grpc.Channel, service: str = "", timeout: float = 1.0) -> bool:
    """One grpc.health.v1 Check: True only for SERVING."""
    return probe(channel, service, timeout) == "SERVING"


def wait_healthy(port: int, deadline: float, process: subprocess.Popen[bytes] | None = None) -> bool:
    """Poll grpc.health.v1 on 127.0.0.1:port until SERVING, the deadline, or the process exits."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                return False
            if is_serving(channel):
                return True
            time.sleep(0.1)
    return False


def up(
    settings: Settings,
    startup_timeout: float = 30.0,
    out=sys.stdout,
    models: Callable[[Settings], list[str]] | None = None,
    split: bool = False,
) -> int:
    """Run the four services until Ctrl-C, in this process (embedded.py) or, `split`, one
    process each; `models` says, once they are up, whether the models answer (a line each,
    printed under the endpoints)."""
    if (busy := busy_port(settings)) is not None:
        print(busy, file=sys.stderr)
        return 1
    if settings.api_keys and not settings.internal_secret():
        # The internal ports are open to this machine in either topology: they need it too.
        settings = settings.replace(internal_token=local_internal_token(settings.data_dir))
    if not split:
        return up_embedded(settings, out, banner=lambda s: banner(s, "one process"), models=models)
    return _up_split(settings, startup_timeout, out, models)


def _up_split(
    settings: Settings, startup_timeout: float, out: Any, models: Callable[[Settings], list[str]] | None
) -> int:
    stop_requested = False

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stop_requested
        stop_requested = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    children: list[Child] = []
    port_of = ports(settings)
    env = os.environ.copy()
    if token := settings.internal_secret():  # given, or made by up() for this data directory
        env["AGENTRT_INTERNAL_TOKEN"] = token
    try:
        for name in START_ORDER:
            process = subprocess.Popen([sys.executable, "-m", "agentrt", "serve", name], env=env)
            children.append(Child(name, port_of[name], process))
        deadline = time.monotonic() + startup_timeout
        for child in children:
            if stop_requested:
                return 130
            if not wait_healthy(child.port, deadline, child.process):
                print(
                    f"agentrt up: {child.name} did not become healthy on port {child.port}", file=sys.stderr
                )
                return 1
        if dead := [c.name for c in children if c.process.poll() is not None]:
            # Healthy answers came from someone else's server on a port taken since the check.
            print(f"agentrt up: {', '.join(dead)} exited while starting", file=sys.stderr)
            return 1
        print(banner(settings, "a process per service"), file=out, flush=True)
        # Whether the model answers, now rather than at the first run that waits on it.
        print_up(models(settings) if models is not None else [], out)
        while not stop_requested:
            for child in children:
                if child.process.poll() is not None:
                    print(f"agentrt up: {child.name} exited with {child.process.returncode}", file=sys.stderr)
                    return 1
            time.sleep(0.2)
        return 0
    finally:
        _stop_all(children, settings.shutdown_grace_s + 5.0)


def banner(settings: Settings, topology: str) -> str:
    """What `up` prints once every service is healthy: where each is, and how it is set up."""
    inner, gateway = settings.internal_host, settings.gateway
    return (
        f"agentrt is up ({topology}):\n"
        f"  gateway   {gateway.host}:{gateway.gateway_port}  agentrt.v1.RunService (public)\n"
        f"  http      http://{gateway.host}:{gateway.http_port}/  "
        "REST/SSE, live run page, /docs, MCP at /mcp\n"
        f"  executor  {inner}:{settings.executor_port}  agentrt.v1.RunService (internal)\n"
        f"  planner   {inner}:{settings.planner_port}  agentrt.v1.PlannerService (internal)\n"
        f"  tools     {inner}:{settings.tools_port}  agentrt.v1.ToolService (internal)\n"
        f"  data      {settings.data_dir}\n"
        f"  metrics   {_metrics_line(settings)}\n"
        f"  API keys  {_keys_line(settings)}"
    )


def local_internal_token(data_dir: Path) -> str:
    """The internal credential `up` made for this data directory (made now if there is none):
    readable by this user only, like the databases beside it."""
    path = data_dir / TOKEN_FILE
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_urlsafe(32))
    return path.read_text().strip()


def internal_metadata(settings: Settings) -> tuple[tuple[str, str], ...]:
    """The internal credential for a direct call to an internal service (the `agentrt tools`
    commands): AGENTRT_INTERNAL_TOKEN, else the one `up` made here; none without either."""
    token = settings.internal_secret()
    if not token and (settings.data_dir / TOKEN_FILE).exists():
        token = (settings.data_dir / TOKEN_FILE).read_text().strip()
    return ((INTERNAL_HEADER, token),) if token else ()


def _metrics_line(settings: Settings) -> str:
    listed = metrics_ports(settings)
    on = [f"{name} :{port}" for name in ("gateway", "executor", "planner", "tools") if (port := listed[name])]
    return ("Prometheus /metrics on " + ", ".join(on)) if on else "off"


def _keys_line(settings: Settings) -> str:
    if not settings.api_keys:
        return "off (anyone who reaches the gateway may call it, as 'local'; set AGENTRT_API_KEYS)"
    named = [
        name + (f" ({', '.join(sorted(roles - {'user'}))})" if roles - {"user"} else "")
        for name, (_, roles) in sorted(settings.principals().items())
    ]
    return f"on ({len(named)} key(s): {', '.join(named)}); internal ports need the internal credential"


def _stop_all(children: list[Child], grace: float) -> None:
    for child in reversed(children):
        if child.process.poll() is None:
            child.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in reversed(children):
        try:
            child.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.process.kill()
            child.process.wait()
