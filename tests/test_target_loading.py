"""Choosing the target: option, environment variable, import failure, missing names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.target import DEFAULT_TARGET, TARGET_ENV_VAR, load_target, target_name

ROOT = Path(__file__).resolve().parents[1]


def run_suite(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    full_env.pop(TARGET_ENV_VAR, None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", *args],
                          cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=300)


def test_target_name_precedence(monkeypatch):
    monkeypatch.delenv(TARGET_ENV_VAR, raising=False)
    assert target_name(None) == DEFAULT_TARGET
    monkeypatch.setenv(TARGET_ENV_VAR, "from_env")
    assert target_name(None) == "from_env"
    assert target_name("from_option") == "from_option"


def test_missing_interface_name_fails_with_a_clear_message():
    target = load_target("tests.targets.lacks_prepare_inputs")
    with pytest.raises(pytest.fail.Exception,
                       match="target tests.targets.lacks_prepare_inputs does not define "
                             "prepare_inputs"):
        target.prepare_inputs
    with pytest.raises(AttributeError):  # names outside the interface are plain misses
        target.not_part_of_the_interface


def test_unimportable_target_is_one_line_usage_error():
    proc = run_suite("conformance/test_slot_table.py", "--target", "tests.targets.broken_import")
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout + proc.stderr
    assert ("cannot import conformance target 'tests.targets.broken_import': ImportError: "
            "this target needs a backend") in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_target_from_environment_and_missing_function_report():
    proc = run_suite("conformance/test_ordering.py", "-k", "prepare_inputs_values and cpu",
                     env={TARGET_ENV_VAR: "tests.targets.lacks_prepare_inputs"})
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout + proc.stderr
    assert "mrv2-conformance target: tests.targets.lacks_prepare_inputs" in proc.stdout
    assert "target tests.targets.lacks_prepare_inputs does not define prepare_inputs" in proc.stdout
    assert "ordering" in proc.stdout and "NON-CONFORMING" in proc.stdout


def test_a_declared_unsupported_function_skips_its_tests_with_the_reason():
    proc = run_suite("conformance/test_pcp.py", "-k", "placeholder and cpu", "-rs",
                     "--target", "tests.targets.without_pcp")
    out = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.OK, out
    assert ("target tests.targets.without_pcp does not support partition_batch: this "
            "backend has no prefill context parallelism") in out
    assert "1 skipped" in out, out
