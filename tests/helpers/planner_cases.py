"""Planner cases shared by several test modules (each described where it is first used)."""

from __future__ import annotations

from gpudesk.planner.requirement import Requirement

# LoRA of Qwen2.5-14B on one workstation with a $60k budget, micro-batch 8 and global batch 32 (issue 12): a 48 GB
# card holds the job at micro-batch 1 with 32 accumulation steps (tests/planner/test_search.py).
LORA_14B = """version = 1
name = "LoRA Qwen2.5-14B on one workstation, budget 60k"
[data]
sample_count = 50000
[model]
model = "qwen2.5-14b"
mode = "lora"
seq_len_tokens = 2048
micro_batch_size = 8
global_batch_size = 32
[workload]
deadline_s = 604800.0
[operations]
max_gpus = 4
budget_usd = 60000
"""


def training_70b(deadline_days: float) -> Requirement:
    """The tryout's Llama 3.1 70B full training (/tmp/try/p_tight2.toml): 1e9 samples x 8192 tokens, at most 8
    GPUs, due in ``deadline_days`` days."""
    req = Requirement()
    req.model.model = "meta-llama/Llama-3.1-70B"
    req.model.seq_len_tokens = 8192
    req.data.sample_count = 1_000_000_000
    req.operations.max_gpus = 8
    req.workload.deadline_s = deadline_days * 86400
    return req
