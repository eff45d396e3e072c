"""The installed command and the plugin's reach: ``mrv2-conformance`` runs the suite's
properties from any directory, and the plugin leaves other projects' pytest runs alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mrv2_conformance.invocation import names_tests, pytest_args


def test_test_names_are_told_from_option_values():
    assert not names_tests(["--target", "mrv2_conformance.tests.mutants.m_x", "-k", "cpu"])
    assert not names_tests(["-m", "keyerror", "--hypothesis-seed", "3"])
    assert names_tests(["mrv2_conformance.conformance.test_keyerror::test_x", "-q"])
    assert "mrv2_conformance.conformance" in pytest_args(["-q"])
    assert "mrv2_conformance.conformance" not in pytest_args(
        ["mrv2_conformance.conformance.test_pcp"]
    )


def test_help_shows_the_suites_options_first_and_briefly():
    proc = subprocess.run(
        [sys.executable, "-m", "mrv2_conformance", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and len(lines) < 40, proc.stdout
    assert lines[0].startswith("usage: mrv2-conformance")
    assert any(line.strip().startswith("--target") for line in lines[:10]), lines[:10]
    assert "--help-pytest" in proc.stdout


def test_the_plugin_stays_out_of_other_projects_runs(tmp_path):
    (tmp_path / "test_theirs.py").write_text(
        "import sys\n\nimport pytest\n\n"
        "@pytest.fixture(params=['npu'])\n"
        "def device(request):\n"
        "    return request.param\n\n"
        "def test_theirs(device):\n"
        "    assert device == 'npu'\n"
        "    assert 'torch' not in sys.modules  # the plugin imported nothing heavy\n"
        "    assert not any(m.startswith('mrv2_conformance.') and m not in {\n"
        "        'mrv2_conformance.contract', 'mrv2_conformance.conformance',\n"
        "        'mrv2_conformance.conformance.target'} and not m.startswith(\n"
        "        'mrv2_conformance.plugin') for m in sys.modules), sorted(sys.modules)\n"
        "    plugins = sys.modules['_pytest.config'].PytestPluginManager\n"
        "    from hypothesis import settings  # the suite registered no profile\n"
        "    assert 'kill' not in getattr(settings, '_profiles', {})\n"
        "    for name in ('targets', 'reporter', 'deviations'):\n"
        "        assert f'mrv2_conformance.plugin.{name}' not in sys.modules, name\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "test_theirs[npu] PASSED" in proc.stdout  # their device fixture, not ours
    assert "mrv2-conformance target" not in proc.stdout and "contract family" not in proc.stdout


def test_the_command_runs_the_properties_from_another_directory(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mrv2_conformance", "-p", "no:xdist", "-q", "-m", "slot_table"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "slot_table            5        0        0        0  partial run" in proc.stdout
    assert proc.stdout.splitlines()[-2].startswith(
        "mrv2_conformance.impl: PARTIAL RUN (selected by -m 'slot_table'), not a conformance "
        "result: checked 5 of "
    ), proc.stdout[-1000:]


def test_pytest_pyargs_finds_a_target_in_the_directory_it_starts_from(tmp_path):
    """As the command does: a project's own target module imports, also when the suite
    runs by ``pytest --pyargs`` (whose console script puts no directory on the path)."""
    (tmp_path / "my_local_target.py").write_text("from mrv2_conformance.impl import *\n")
    pytest_script = Path(sys.executable).with_name("pytest")
    proc = subprocess.run(
        [str(pytest_script), "-p", "no:xdist", "-q", "--pyargs",
         "mrv2_conformance.conformance.test_slot_table", "--target", "my_local_target"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "conformance of my_local_target by contract family" in proc.stdout


def test_the_command_finds_a_target_in_the_directory_it_starts_from(tmp_path):
    (tmp_path / "my_cli_target.py").write_text("from mrv2_conformance.impl import *\n")
    command = Path(sys.executable).with_name("mrv2-conformance")
    proc = subprocess.run(
        [str(command), "-p", "no:xdist", "-q", "-m", "slot_table", "--target", "my_cli_target"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "conformance of my_cli_target by contract family" in proc.stdout
