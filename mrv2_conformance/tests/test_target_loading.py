"""Choosing the target: option, environment variable, import failure, missing names."""

from __future__ import annotations

import re

import pytest
from mrv2_conformance.plugin.target import (
    DEFAULT_TARGET,
    TARGET_ENV_VAR,
    load_target,
    target_name,
)
from mrv2_conformance.tests.helpers import run_suite

TARGETS = "mrv2_conformance.tests.targets"
LACKS = f"{TARGETS}.lacks_prepare_inputs"


def test_target_name_precedence(monkeypatch):
    monkeypatch.delenv(TARGET_ENV_VAR, raising=False)
    assert target_name(None) == DEFAULT_TARGET
    monkeypatch.setenv(TARGET_ENV_VAR, "from_env")
    assert target_name(None) == "from_env"
    assert target_name("from_option") == "from_option"


def test_missing_interface_name_fails_with_a_clear_message():
    target = load_target(LACKS)
    with pytest.raises(
        pytest.fail.Exception, match=re.escape(f"target {LACKS} does not define prepare_inputs")
    ):
        _ = target.prepare_inputs
    with pytest.raises(AttributeError):  # names outside the interface are plain misses
        _ = target.not_part_of_the_interface


def test_unimportable_target_is_one_line_usage_error():
    broken = f"{TARGETS}.broken_import"
    proc = run_suite("conformance/test_slot_table.py", "--target", broken)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout + proc.stderr
    assert (
        f"cannot import conformance target '{broken}': ImportError: this target needs a backend"
    ) in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("exits_at_import", "it called sys.exit(3) at import (at <module>, "),
        (
            "nameless_at_import",
            "TypeError: 'NoneType' object is not callable (at _configure_backend, ",
        ),
        ("hangs_at_import", "did not return within 3 s from import() (stopped in <module>, "),
    ],
)
def test_whatever_a_target_does_at_import_is_one_line_naming_it(module, line):
    """sys.exit, an error whose text names nothing, a hang: each stops the run with one
    line that names the target, what happened and where (exit 4, no traceback)."""
    name = f"{TARGETS}.{module}"
    proc = run_suite(
        "conformance/test_slot_table.py", "--target", name, "--target-timeout=0.3", timeout=120
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, out
    (error,) = [x for x in out.splitlines() if x.startswith("ERROR:")]
    assert error.startswith(f"ERROR: cannot import conformance target '{name}': "), error
    assert line in error and f"{module}.py:" in error, error
    assert "Traceback" not in out


def test_target_from_environment_and_missing_function_report():
    proc = run_suite(
        "conformance/test_ordering.py",
        "-k",
        "prepare_inputs_values and cpu",
        env={TARGET_ENV_VAR: LACKS},
    )
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout + proc.stderr
    assert f"mrv2-conformance target: {LACKS}" in proc.stdout
    assert f"target {LACKS} does not define prepare_inputs" in proc.stdout
    assert "ordering" in proc.stdout and "NON-CONFORMING" in proc.stdout


def test_a_declared_unsupported_function_skips_its_tests_with_the_reason():
    proc = run_suite(
        "conformance/test_pcp.py",
        "-k",
        "placeholder and cpu",
        "-rs",
        "--target",
        f"{TARGETS}.without_pcp",
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, out  # tested nothing
    assert (
        "not applicable (declared by the target): lacks pcp (F3, the prefill-context-parallel "
        "partition: build_pcp_layout, partition_batch): build_pcp_layout: this backend has no "
        "prefill context parallelism"
    ) in out
    assert "1 skipped" in out, out


def test_a_target_is_checked_against_the_revision_it_declares():
    """The reference claiming "0.30" and implementing it passes every PCP property
    and the differential comparison (with the reference at "0.30"); the report names
    the revision."""
    proc = run_suite(
        "conformance/test_pcp.py",
        "conformance/test_differential.py",
        "-k",
        "partition or pcp_layout or hidden_restore",
        "--target",
        f"{TARGETS}.revision_030",
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.OK, out
    assert "PARTIAL RUN (selected by -k" in out and "against contract revision '0.30'" in out, out
    assert "NOT" not in out, out


def test_an_unknown_revision_is_one_line_usage_error():
    name = f"{TARGETS}.unknown_revision"
    proc = run_suite("conformance/test_slot_table.py", "--target", name)
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, out
    assert (
        f"target {name} declares CONTRACT_REVISION '0.99', which the suite does not "
        "know; known: '#51210'"
    ) in proc.stderr, out
    assert "Traceback" not in out


def test_a_partial_port_is_checked_where_it_applies_and_says_what_it_lacks():
    """Every property runs against a port that declares it lacks PCP, drafts and
    max_query_len: the PCP and max_query_len properties are not applicable (at setup,
    no example block), no input carries what it lacks (it would raise), and the last
    line names every clause that was not checked."""
    partial = f"{TARGETS}.partial_port"
    proc = run_suite("conformance", "-rs", "--target", partial, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.OK, out
    assert "declared not implemented: drafts (F1.1's" in out, out
    assert "not applicable (declared by the target): lacks pcp (F3, " in out, out
    assert "lacks max_query_len (F2" in out, out
    assert "Falsifying" not in out and "Failing explicit" not in out, out
    pcp_row = next(line for line in out.splitlines() if line.startswith("pcp "))
    assert pcp_row.endswith("not applicable (declared by the target)"), pcp_row
    last = out.strip().splitlines()[-1]
    assert f"{partial} conforms to contract revision '#51210'; not checked, as the" in out, out
    for cap in ("pcp (F3, ", "drafts (F1.1", "max_query_len (F2"):
        assert cap in out.split(f"{partial} conforms to contract revision")[-1], last


def test_lacks_must_name_known_capabilities_with_a_reason(tmp_path):
    (tmp_path / "lacks_nonsense.py").write_text(
        "from mrv2_conformance.impl import *  # noqa: F403\nLACKS = {'teleport': 'no'}\n"
    )
    proc = run_suite(
        "conformance/test_keyerror.py",
        "--target",
        "lacks_nonsense",
        env={"PYTHONPATH": str(tmp_path)},
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, out
    assert "LACKS names 'teleport', which is no capability the suite knows" in out, out
