"""Links in README.md and docs/*.md lead somewhere, and the README's contents list every section.

Anchors follow GitHub's rules for a heading's id: its text as rendered (links and code spans
reduced to their text), lowercased, every character dropped that is not a letter, a digit, a
space, `-` or `_`, and each space made a `-`; a repeated heading gets `-1`, `-2`, ... Headings and
links inside fenced code blocks do not count.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose(text: str) -> list[str]:
    """The lines of a Markdown text outside fenced code blocks ("" for the others, to keep numbers)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            lines.append("")
        else:
            lines.append("" if fenced else line)
    return lines


def slug(heading: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(path: Path) -> list[tuple[int, str, str]]:
    """(level, text, anchor) of each heading of a Markdown file, in order."""
    seen: Counter[str] = Counter()
    found = []
    for line in prose(path.read_text()):
        if m := HEADING.match(line):
            base = slug(m[2])
            anchor = base if not seen[base] else f"{base}-{seen[base]}"
            seen[base] += 1
            found.append((len(m[1]), m[2], anchor))
    return found


def links(path: Path) -> list[str]:
    text = "\n".join(prose(path.read_text()))
    text = re.sub(r"`[^`\n]*`", "", text)  # a code span is not a link (a link's text may be one)
    return LINK.findall(text)


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_link_leads_to_a_file_and_a_heading(path: Path) -> None:
    broken = []
    for target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        where = (path.parent / file).resolve() if file else path
        if not where.exists():
            broken.append(
                f"{target}: no file {where.relative_to(ROOT) if where.is_relative_to(ROOT) else where}"
            )
        elif anchor and where.suffix == ".md" and anchor not in {a for _, _, a in headings(where)}:
            broken.append(f"{target}: no heading with this anchor in {where.relative_to(ROOT)}")
    assert not broken, f"broken links in {path.relative_to(ROOT)}:\n  " + "\n  ".join(broken)


def test_the_contents_list_every_section_and_every_guide() -> None:
    readme = ROOT / "README.md"
    lines = prose(readme.read_text())
    start = lines.index("## Contents")
    end = next(n for n in range(start + 1, len(lines)) if lines[n].startswith("## "))
    listed = {target[1:] for target in LINK.findall("\n".join(lines[start:end])) if target.startswith("#")}
    wanted, section = [], ""
    for level, text, anchor in headings(readme):
        if level == 2:
            section = text
        if (level == 2 and text != "Contents") or (level == 3 and section == "Guides"):
            wanted.append(anchor)
    assert wanted, "no sections found in README.md"
    missing = [anchor for anchor in wanted if anchor not in listed]
    assert not missing, f"README.md's contents do not link to: {missing}"


def test_anchors_are_made_as_github_makes_them(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text(
        "# Top\n## Run a prompt with curl (REST and Server-Sent Events)\n"
        "### A thread's history in the model's `messages`\n```sh\n# not a heading\n```\n## Top\n"
    )
    assert [a for _, _, a in headings(doc)] == [
        "top",
        "run-a-prompt-with-curl-rest-and-server-sent-events",
        "a-threads-history-in-the-models-messages",
        "top-1",
    ]
