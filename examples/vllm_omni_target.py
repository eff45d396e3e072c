"""vllm-omni 0.30.0's MRV2 runner, OmniGPUModelRunner, on upstream's other classes."""

from mrv2_conformance.adapters.vllm_plugin import plugin_target

plugin_target(
    __name__,
    "vllm-omni 0.30.0",
    runner="vllm_omni.worker_v2.omni_model_runner:OmniGPUModelRunner",
    runner_attrs={"model": None},  # its overrides read optional hooks of self.model
    lacks={"pcp": "OmniGPUModelRunner._validate_parallel_support rejects PCP > 1"},
)
