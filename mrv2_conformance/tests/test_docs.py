"""The docs stay true: the README is short, every link in the docs leads to a file, the
failure the README quotes is what its command prints, and the plugin stays in small
modules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from mrv2_conformance import suite_root

CLONE = suite_root().parent
README = CLONE / "README.md"
DOCS = [README, *sorted((CLONE / "docs").rglob("*.md")), suite_root() / "bench" / "README.md"]
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")

pytestmark = pytest.mark.skipif(not README.exists(), reason="needs the clone's docs")


def test_the_readme_is_read_in_five_minutes():
    assert README.stat().st_size <= 15_000, f"README.md is {README.stat().st_size} bytes"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(CLONE)))
def test_every_link_leads_to_a_file(doc: Path):
    broken = [
        link
        for link in _LINK.findall(doc.read_text())
        if not link.startswith(("http://", "https://")) and not (doc.parent / link).exists()
    ]
    assert not broken, f"{doc.name}: links to nothing: {broken}"


def test_the_failure_the_readme_quotes_is_what_its_command_prints(tmp_path):
    text = README.read_text()
    quoted = text[text.index("## Reading the summary and a failure") :]
    block = quoted[quoted.index("```\n") + 4 : quoted.index("\n```", quoted.index("```\n") + 4)]
    proc = subprocess.run(
        [sys.executable, "-m", "mrv2_conformance", "-p", "no:xdist", "-m", "keyerror", "-k",
         "gather", "--target", "mrv2_conformance.tests.mutants.m_get_typeerror"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    # pytest prints the message as one string; the README wraps it at 88 columns.
    shown = " ".join(proc.stdout.replace("E   ", " ").split())
    message = " ".join(block[: block.index("Failing explicit example")].split())
    assert message in shown, proc.stdout[-3000:]
    command = block.splitlines()[-1].strip()
    assert command in proc.stdout, proc.stdout[-3000:]


def test_no_module_of_the_plugin_is_over_250_lines():
    sizes = {
        p.name: len(p.read_text().splitlines()) for p in (suite_root() / "plugin").glob("*.py")
    }
    assert max(sizes.values()) <= 250, sizes
