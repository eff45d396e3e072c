"""The pieces of the ``adapters.vllm`` target. Only ``environment`` imports without
vLLM; everything else imports it."""
