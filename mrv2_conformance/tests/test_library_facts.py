"""What the suite relies on from numpy and torch, in one place, so that each env of the
torch x numpy matrix (tox.ini) says at once when a release changes one of them.

Each fact names the check that depends on it. Behaviour that does differ between the
supported releases is handled where it is used (``assertions.memory_extent``: numpy 2
moved ``byte_bounds``; ``reference.import_suite_modules``) and tested here across
releases through the same code path.
"""

from __future__ import annotations

import sys
import subprocess
import numpy as np
import pytest
import torch

from mrv2_conformance.conformance.assertions import memory_extent, shares_memory
from mrv2_conformance.impl import async_copy_to_gpu


def test_from_numpy_keeps_the_index_width():
    # dtype_width: "torch.from_numpy(idx_mapping_np) is torch.int64" is how intp must
    # reach the device without a conversion (docs/CONTRACT.md F1.2).
    assert np.dtype(np.intp).itemsize == 8, "the suite assumes a 64-bit platform"
    assert torch.from_numpy(np.zeros(3, np.intp)).dtype is torch.int64
    assert torch.from_numpy(np.zeros(3, np.int32)).dtype is torch.int32
    assert torch.from_numpy(np.zeros(3, np.bool_)).dtype is torch.bool


def test_conversion_to_the_same_type_is_no_copy():
    # dtype_width's "no conversion on use": np.asarray(a, np.intp) is a, and
    # t.to(torch.int64) is t, exactly when nothing has to change.
    a = np.arange(4, dtype=np.intp)
    assert np.asarray(a, np.intp) is a
    assert np.asarray(a.astype(np.int32), np.intp) is not a
    t = torch.arange(4, dtype=torch.int64)
    assert t.to(torch.int64) is t and t.to("cpu") is t
    assert t.to(torch.int32).to(torch.int64) is not t


def test_memory_extents_see_sharing_across_numpy_and_torch():
    # device_host and aliasing: a tensor from torch.from_numpy shares the array's
    # memory; a copy does not; views lie inside their base.
    a = np.arange(8, dtype=np.intp)
    assert shares_memory(torch.from_numpy(a), a)
    assert not shares_memory(torch.from_numpy(a.copy()), a)
    assert shares_memory(a[2:5], a) and not shares_memory(a[:2], a[2:])
    t = torch.arange(8, dtype=torch.int32)
    space, lo, hi = memory_extent(t[1:3])
    assert space == "host" and hi - lo == 2 * 4
    assert memory_extent(np.zeros(0)) is None and memory_extent(torch.zeros(0)) is None


def test_the_host_copy_is_a_snapshot():
    # F1.4 on a machine without an accelerator: a plain copy, dtype kept, no aliasing.
    x = np.arange(5, dtype=np.intp)
    out = async_copy_to_gpu(x, device="cpu")
    x[:] = -1
    assert out.dtype is torch.int64 and out.tolist() == [0, 1, 2, 3, 4]


@pytest.mark.skipif(torch.cuda.is_available(), reason="pinned memory exists with a GPU")
def test_pinned_host_memory_is_refused_without_an_accelerator():
    # Why the vLLM adapter stands in for pinning on CPU (adapters/_vllm/environment.py)
    # and the reference never pins for a cpu copy: a CPU build has no pinned
    # allocator, and a CUDA build without a GPU cannot reach the driver.
    # In a fresh process: this one may have registered the simulated device.
    proc = subprocess.run(
        [sys.executable, "-c", "import torch; torch.zeros(2, pin_memory=True)"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0 and "RuntimeError" in proc.stderr, proc.stderr[-500:]
