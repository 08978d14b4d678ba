"""docs/DESIGN.md stays true: every file or folder it names exists, so a newcomer following its
map ("where does X live") lands in a real room."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "DESIGN.md"
# A backticked token that names a file or folder of ours: a path, or a bare file name.
NAME = re.compile(r"`([A-Za-z0-9_./-]+(?:\.py|\.proto|\.json|/))`")


def named_paths() -> list[tuple[int, str]]:
    """(line, path) for each file or folder the document names. A bare name (`store.py`) is
    read in the folder of the last path named before it on the same line, as the table does."""
    found = []
    for number, line in enumerate(DESIGN.read_text().splitlines(), 1):
        folder = None
        for token in NAME.findall(line):
            if token.startswith("/"):
                continue  # a URL path such as `/mcp/`, not a file
            if "/" in token.rstrip("/"):
                folder = str(Path(token).parent) if not token.endswith("/") else token.rstrip("/")
                found.append((number, token))
            elif folder is not None:
                found.append((number, f"{folder}/{token}"))
            else:
                found.append((number, token))
    return found


def exists(token: str) -> bool:
    if (ROOT / token).exists():
        return True
    # A bare file name with no folder on its line: it must exist somewhere in the project.
    return "/" not in token and any(ROOT.glob(f"*/**/{token}"))


def test_every_file_the_design_document_names_exists() -> None:
    named = named_paths()
    assert len(named) > 60  # the map was read
    missing = [f"line {line}: {token}" for line, token in named if not exists(token)]
    assert missing == []
