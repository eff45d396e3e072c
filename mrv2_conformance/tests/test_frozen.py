"""Meta-tests of conformance/frozen.py: every kind of change to a value is seen and
named, nothing that did not change is reported, and the fast ``Probe`` never says a
result holds when its token changed."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import torch
from mrv2_conformance.conformance.frozen import Probe, difference, freeze


@dataclass
class Batch:
    req_ids: list[str]
    idx_mapping_np: np.ndarray
    idx_mapping: torch.Tensor
    expanded_idx_mapping: torch.Tensor
    num_tokens: int
    extra: dict[str, Any] = field(default_factory=dict)


def batch() -> Batch:
    mapping = torch.tensor([3, 1, 2], dtype=torch.int64)
    return Batch(
        ["a", "b", "c"],
        np.array([3, 1, 2], dtype=np.intp),
        mapping,
        mapping,
        7,
        {"drafts": [1, 2], "seen": {"x"}},
    )


def _set_item(b: Batch) -> None:
    b.idx_mapping_np[1] = 9


def _tensor_item(b: Batch) -> None:
    b.idx_mapping[0] = 5  # also expanded_idx_mapping: the same tensor


def _rebind_equal(b: Batch) -> None:  # an equal copy in place of the shared tensor
    b.expanded_idx_mapping = b.idx_mapping.clone()


def _new_attribute(b: Batch) -> None:
    b.note = 1  # type: ignore[attr-defined]


# (what changes, how, the words the difference must contain)
CHANGES = [
    ("an array element", _set_item, "idx_mapping_np changed at flat index 1: 1 -> 9"),
    ("a tensor element", _tensor_item, "idx_mapping changed at flat index 0: 3 -> 5"),
    (
        "an array's dtype",
        lambda b: setattr(b, "idx_mapping_np", b.idx_mapping_np.astype(np.int32)),
        "idx_mapping_np changed: ndarray[<i8",
    ),
    ("a list reordered", lambda b: b.req_ids.reverse(), "req_ids[0] changed: 'a' -> 'c'"),
    ("a list element's type", lambda b: b.req_ids.__setitem__(0, b"a"), "req_ids[0] changed"),
    ("a plain attribute", lambda b: setattr(b, "num_tokens", 8), ".num_tokens changed: 7"),
    ("an int that became a bool", lambda b: setattr(b, "num_tokens", True), ".num_tokens changed"),
    ("a nested list", lambda b: b.extra["drafts"].append(3), "['drafts'] changed length: 2 -> 3"),
    ("a set", lambda b: b.extra["seen"].add("y"), "['seen'] changed"),
    (
        "dict order",
        lambda b: b.extra.update({"drafts": b.extra.pop("drafts")}),
        "keys changed: ['drafts', 'seen'] -> ['seen', 'drafts']",
    ),
    ("a shared tensor no longer shared", _rebind_equal, "expanded_idx_mapping changed"),
    ("an attribute added", _new_attribute, "its attributes changed"),
]


@pytest.mark.parametrize("what, change, words", CHANGES, ids=[c[0] for c in CHANGES])
def test_every_change_is_seen_and_named(what, change, words):
    value = batch()
    before = freeze(value)
    change(value)
    found = difference(before, freeze(value), "batch")
    assert found is not None, f"{what}: not seen"
    assert words in found, f"{what}: {found!r} does not say {words!r}"


def test_an_unchanged_value_and_an_equal_copy_have_the_same_token():
    value = batch()
    token = freeze(value)
    assert difference(token, freeze(value)) is None
    assert freeze(copy.deepcopy(value)) == token


def test_skipped_objects_may_change():
    value = batch()
    token = freeze(value, {id(value.idx_mapping_np)})
    value.idx_mapping_np[0] = 99
    assert freeze(value, {id(value.idx_mapping_np)}) == token


def test_a_host_tensor_is_described_as_on_cpu():
    before = freeze(torch.zeros(2, dtype=torch.int32))
    found = difference(before, freeze(torch.zeros(3, dtype=torch.int32)), "t")
    assert (
        found == "t changed: Tensor[torch.int32, torch.Size([2]), cpu] -> "
        "Tensor[torch.int32, torch.Size([3]), cpu]"
    )


@pytest.mark.parametrize("what, change, words", CHANGES, ids=[c[0] for c in CHANGES])
def test_the_probe_holds_only_while_the_token_holds(what, change, words):
    value = batch()
    probe = Probe(value)
    assert probe.holds()
    change(value)
    # A probe may fail where the token holds (freeze then decides), never the reverse.
    assert not probe.holds(), f"{what}: the probe missed it"


def test_the_probe_sees_a_tensor_given_other_storage_and_an_array_reshaped():
    value = batch()
    probe = Probe(value)
    value.idx_mapping.set_(torch.tensor([3, 1, 2], dtype=torch.int64).untyped_storage())
    assert not probe.holds()
    value = batch()
    probe = Probe(value)
    value.idx_mapping_np.shape = (3, 1)
    assert not probe.holds()


def test_the_probe_leaves_out_skipped_objects():
    value = batch()
    probe = Probe(value, {id(value.idx_mapping_np)})
    value.idx_mapping_np[0] = 99
    assert probe.holds()
