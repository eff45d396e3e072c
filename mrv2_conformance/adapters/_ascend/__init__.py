"""The pieces of the ``mrv2_conformance.adapters.vllm_ascend`` target. ``stand_ins``
imports without vLLM or the plugin."""
