"""`pip install agentrt` without extras, in a fresh venv: a working client, CLI and tool SDK,
and none of the services' weight (no database, web server or LLM library)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.procs import start_system

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("agentrt", "planner_svc", "executor_svc", "tools_svc", "gateway")
# What the `server` and `llm` extras bring; none may come with the base install.
SERVER_ONLY = ("sqlalchemy", "alembic", "asyncpg", "starlette", "uvicorn", "jsonschema-rs", "litellm")


def _run(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def base_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with `pip install .` of a copy of the sources (the checkout stays untouched)."""
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in SOURCES:
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    installed = _run(
        str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(src), cwd=tmp, timeout=600
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return venv


def test_the_base_install_leaves_the_services_dependencies_out(base_venv: Path) -> None:
    listed = _run(str(base_venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze", cwd=base_venv)
    names = {line.split("==")[0].lower() for line in listed.stdout.splitlines()}
    assert "agentrt" in names and "grpcio" in names
    assert not names & set(SERVER_ONLY), f"the base install pulled {sorted(names & set(SERVER_ONLY))}"
    # The client, the CLI and the tool SDK import without them.
    imported = _run(
        str(base_venv / "bin" / "python"),
        "-c",
        "from agentrt.client import Client, result_value; from agentrt.tools_sdk import tool, ToolProvider",
        cwd=base_venv,
    )
    assert imported.returncode == 0, imported.stderr


def test_the_base_install_runs_prompts_and_serves_a_tool_provider(base_venv: Path, tmp_path: Path) -> None:
    agentrt = str(base_venv / "bin" / "agentrt")
    # The services run from the development install; the base install is the user's machine.
    system = start_system(tmp_path / "data", tmp_path / "up.log", AGENTRT_REGISTRY_REFRESH_S="0.2")
    provider = None
    try:
        ran = _run(agentrt, "run", "calculate (10 + 5) * 2", "--target", system.target, cwd=tmp_path)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "run succeeded" in ran.stdout and '"value": 30' in ran.stdout
        listed = _run(agentrt, "list", "--target", system.target, cwd=tmp_path)
        assert listed.returncode == 0 and "succeeded" in listed.stdout

        # A provider written with the SDK, served by the base install's CLI.
        # Only the example, not the sources: nothing may be imported from a checkout.
        examples = tmp_path / "provider"
        shutil.copytree(
            ROOT / "examples", examples / "examples", ignore=shutil.ignore_patterns("__pycache__")
        )
        serve = ["tools", "serve", "examples.unit_converter:convert_units"]
        with (tmp_path / "provider.log").open("ab") as log:
            provider = subprocess.Popen(
                [agentrt, *serve, "--tools-addr", f"127.0.0.1:{system.ports['tools']}"],
                cwd=examples,
                env=system.env,
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + 30
        while "convert_units" not in system.agentrt("tools", "list").stdout:
            assert provider.poll() is None, (tmp_path / "provider.log").read_text()
            assert time.monotonic() < deadline, "the provider never registered"
            time.sleep(0.2)
        converted = _run(
            agentrt,
            "run",
            'use convert_units with {"value": 10, "from_unit": "km", "to_unit": "mi"}',
            "--target",
            system.target,
            cwd=tmp_path,
        )
        assert converted.returncode == 0, converted.stdout + converted.stderr
        assert "10 km = 6.21371 mi" in converted.stdout
    finally:
        if provider is not None:
            provider.terminate()
            provider.wait(10)
        system.stop()


def test_agentrt_up_without_the_server_extra_says_what_to_install(base_venv: Path, tmp_path: Path) -> None:
    up = _run(str(base_venv / "bin" / "agentrt"), "up", cwd=tmp_path)
    assert up.returncode == 2
    assert "pip install 'agentrt[server]'" in up.stderr and "sqlalchemy" in up.stderr
    assert "Traceback" not in up.stderr
