"""The pieces of the ``mrv2_conformance.adapters.vllm`` target. Only ``environment`` imports without
vLLM; everything else imports it."""
