"""Upstream API drift under the vLLM adapter, on the installed vLLM (run by every
``tox -e vllm-*`` env; skipped without vLLM): three changes at once, in three kinds of
place, are all named in the one message the target's import stops with."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("vllm") is None, reason="needs vLLM: tox -e vllm-<release>"
)

# Each change is made to the installed vLLM's classes in a fresh process, before the
# adapter is imported: a runner method renamed, a parameter the adapter cannot fill
# added to make_dummy, and prepare_inputs reading a runner attribute nobody sets.
DRIFT = textwrap.dedent(
    """
    import functools
    from mrv2_conformance.adapters._vllm.environment import configure_before_import

    configure_before_import()
    from vllm.v1.worker.gpu import input_batch, model_runner

    runner = model_runner.GPUModelRunner
    runner.finish_reqs = runner.finish_requests
    del runner.finish_requests
    make_dummy = input_batch.InputBatch.make_dummy

    def with_page_size(num_reqs, num_tokens, input_buffers, page_size):
        return make_dummy(num_reqs, num_tokens, input_buffers)

    input_batch.InputBatch.make_dummy = staticmethod(with_page_size)
    prepare = runner.prepare_inputs

    @functools.wraps(prepare)
    def reads_a_new_knob(self, *args, **kwargs):
        self.new_knob.enabled
        return prepare(self, *args, **kwargs)

    runner.prepare_inputs = reads_a_new_knob
    from mrv2_conformance.plugin.target import load_target

    load_target("mrv2_conformance.adapters.vllm")
    """
)


def test_three_changes_are_named_in_one_message():
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", DRIFT], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode != 0
    message = proc.stderr[proc.stderr.index("TargetImportError: ") :]
    assert "3 thing(s) the adapter needs are missing" in message, message
    assert "GPUModelRunner.finish_requests" in message, message
    assert "InputBatch.make_dummy takes 'page_size'" in message, message
    assert "GPUModelRunner reads self.new_knob" in message, message
    assert message.count("\n  - ") == 3, message


REPLACED_COPY = textwrap.dedent(
    """
    from mrv2_conformance.adapters._vllm.environment import configure_before_import

    configure_before_import()
    from vllm.v1.worker.gpu import model_runner

    if {replace} and hasattr(model_runner, "async_tensor_h2d"):
        model_runner.async_tensor_h2d = lambda data, device=None, dtype=None, out=None: data
    import mrv2_conformance.adapters.vllm as target

    print(sorted(target.CONDITIONS), hasattr(model_runner, "async_tensor_h2d"))
    """
)


@pytest.mark.parametrize("replace", [False, True])
def test_the_host_copy_cause_is_declared_only_where_upstreams_copy_runs(replace):
    """xfails entries that need "accelerator build on the host" describe upstream's
    async_tensor_h2d on the host: a build that replaces that copy must not get them."""
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", REPLACED_COPY.format(replace=replace)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    conditions, uses_it = proc.stdout.strip().splitlines()[-1].rsplit(" ", 1)
    # 0.30.0 and later copy with async_tensor_h2d; before, there is nothing to replace
    # (and the entries that need the cause do not apply there).
    expected = "[]" if replace and uses_it == "True" else "['accelerator build on the host']"
    assert conditions == expected, proc.stdout
