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


# The article (section 4.3) measured 1.83 s per step on 8 x A100 80GB SXM4 and finished inside its 7-day deadline.
# The planner's speed model (gpudesk.sizing.speed_train, the one model of plan and estimate speed) puts that
# option at ~2.03 s per step, 7.3 days: 11 % slower than measured, inside its A100 error band, and so just past 7
# days. Tests about what the planner does with a deadline-meeting 8 x A100 (prices, break-even quotes, dominance)
# give the article case this much deadline so the option is in the deadline-meeting tier under the model.
ARTICLE_DEADLINE_UNDER_MODEL_S = 8 * 86400.0


def article_requirement() -> Requirement:
    """The bundled article case with :data:`ARTICLE_DEADLINE_UNDER_MODEL_S` as its deadline."""
    from gpudesk.paths import examples_dir
    from gpudesk.planner import load_profile

    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    req.workload.deadline_s = ARTICLE_DEADLINE_UNDER_MODEL_S
    return req
