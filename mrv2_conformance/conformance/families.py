"""The contract families (pytest markers) and what each one checks."""

FAMILIES: dict[str, str] = {
    "ordering": "F1.1-F1.3 batch order and mapping values",
    "dtype_width": "index arrays intp/int64, counts int32, no conversion on use",
    "keyerror": "missing ids raise KeyError(req_id); nothing changes",
    "dummy_parity": "F2 dummy batch and its parity with a real batch",
    "device_host": "device tensors equal host twins; F1.4 copy semantics",
    "pcp": "F3 prefill context parallel partition",
    "aliasing": "views of the persistent buffers vs fresh arrays, in real, dummy and PCP batches",
    "slot_table": "slot table LIFO, capacity and removal semantics",
    "differential": "the target and the reference give the same outcome on the same input",
    "effects": "what each function reads and may change (checked on every call of every family)",
    "stateful": "an engine's life: many steps on one table and one set of buffers, in lockstep",
}
