"""Generate the Python code for protos/ into agentrt/v1 (or check it is up to date).

Generation uses grpcio-tools, pinned in pyproject.toml next to the protobuf runtime, so the
committed code always matches the runtime that imports it. `--check` regenerates into a
temporary directory and fails on any difference: CI uses it to catch stale generated code. It
also checks that the vendored google/api protos (third_party/googleapis, for buf) are the ones
googleapis-common-protos ships: the generated code imports that package's annotations_pb2.
"""

from __future__ import annotations

import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "protos"
GOOGLEAPIS = ROOT / "third_party" / "googleapis"
VENDORED = ("google/api/annotations.proto", "google/api/http.proto")
PACKAGE_DIR = Path("agentrt") / "v1"
INIT = '"""Generated protobuf and gRPC code for agentrt.v1. Do not edit: run `make protos`."""\n'


def generate(out_root: Path) -> Path:
    out_dir = out_root / PACKAGE_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / PACKAGE_DIR).glob("*.proto"))
    well_known = Path(protoc.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{GOOGLEAPIS}",
        f"-I{well_known}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
        # With comments (source info): the gateway builds its OpenAPI document from this.
        f"--descriptor_set_out={out_dir / 'descriptors.binpb'}",
        "--include_source_info",
        "--include_imports",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    (out_dir / "__init__.py").write_text(INIT)
    (out_dir / "py.typed").write_text("")
    return out_dir


def vendored_drift() -> list[str]:
    """Vendored google/api files that differ from googleapis-common-protos' own."""
    from google.api import annotations_pb2  # noqa: PLC0415 - googleapis-common-protos' copy

    shipped = Path(annotations_pb2.__file__).parent.parent.parent
    return [name for name in VENDORED if (GOOGLEAPIS / name).read_bytes() != (shipped / name).read_bytes()]


def main() -> int:
    target = ROOT / PACKAGE_DIR
    if "--check" not in sys.argv:
        shutil.rmtree(target, ignore_errors=True)
        generate(ROOT)
        print(f"generated {target.relative_to(ROOT)}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate(Path(tmp))
        cmp = filecmp.dircmp(fresh, target, ignore=["__pycache__"])
        stale = cmp.left_only + cmp.right_only + cmp.diff_files
        # dircmp compares shallowly (size+mtime) first; force a content comparison.
        _, mismatch, errors = filecmp.cmpfiles(fresh, target, cmp.common_files, shallow=False)
        stale += mismatch + errors
    if drift := vendored_drift():
        print(f"{', '.join(drift)} differ from googleapis-common-protos': copy them again", file=sys.stderr)
        return 1
    if stale:
        print(
            f"generated code is stale ({', '.join(sorted(set(stale)))}): run `make protos`", file=sys.stderr
        )
        return 1
    print("generated code is up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
