"""The first decode step of Hugging Face ``generate`` with tuple ``past_key_values`` (``--kv-cache-impl legacy-tuple``).

Until transformers 4.42, ``generate``'s decoding loops (``greedy_search`` / ``sample``, later ``_sample``) ran
``outputs = self(**model_inputs, ...)`` while the previous iteration's ``outputs`` and ``model_inputs`` were still
bound. So during a decode step's forward the previous step's output stays alive: its ``past_key_values`` tuple
(the whole cache before the step, while every layer concatenates a grown copy) and its ``logits``. After the
prefill those logits are the prompt's: with ``prompt_logits="all"`` the fp32 logits of every prompt position
(``logits = logits.float()`` over all positions, transformers <= 4.44 causal-LM heads), ``b * s * V * 4`` bytes,
kept through the whole first decode step (``next_token_logits = outputs.logits[:, -1, :]`` is a view of them too).
The first decode step therefore holds the prompt's cache twice (old and grown) plus the prompt's fp32 logits.

transformers PR 30536 ("Reduce by 2 the memory requirement in ``generate()``", merged 2024-05, released in 4.42)
keeps one ``DynamicCache`` from start to end and "removed all the references to leaked logits/leaked copies of
past_key_values" (https://github.com/huggingface/transformers/pull/30536); ``--kv-cache-impl dynamic`` is that
behaviour. The loop shape is that of
https://github.com/huggingface/transformers/blob/v4.38.2/src/transformers/generation/utils.py ``sample`` /
``greedy_search`` (the same in v4.35.0); models that return a tuple cache rebuild it each step
(``DynamicCache.from_legacy_cache`` ... ``to_legacy_cache()``, e.g. ``Qwen2Model.forward`` at v4.38.2).
"""

from __future__ import annotations

from gpudesk.i18n import _

# Bytes of an fp32 logit (the prompt logits ``generate`` keeps are the upcast ones).
FP32_LOGIT_BYTES = 4
# Bytes of a 16-bit logit (a causal-LM forward that does not upcast, ``prompt_logits="all-16bit"``).
HALF_LOGIT_BYTES = 2


def leaked_prompt_logits_bytes(vocab_size: int, prompt_tokens: int, batch: int, prompt_logits: str) -> float:
    """Bytes of the prefill's logits that the first decode step still holds: every prompt position with
    ``prompt_logits="all"`` (fp32) or ``"all-16bit"`` (a forward that returns the LM head's 16-bit output), the last
    one otherwise (fp32)."""
    positions = prompt_tokens if prompt_logits in ("all", "all-16bit") else 1
    per_logit = HALF_LOGIT_BYTES if prompt_logits == "all-16bit" else FP32_LOGIT_BYTES
    return float(per_logit * batch * positions * max(0, vocab_size))


def first_decode_step_bytes(prompt_kv_bytes: float, grown_kv_bytes: float, leaked_logits_bytes: float) -> float:
    """Bytes beyond the weights at the end of the first decode step's forward: the prompt's cache (the tuple
    ``generate`` still holds), its grown copy one token longer, and the prompt's leaked logits."""
    return prompt_kv_bytes + grown_kv_bytes + leaked_logits_bytes


def first_decode_step_note(step_bytes: float) -> tuple[str, str]:
    """The assumption shown when the first decode step sets the peak."""
    return (_("tuple KV cache: the first decode step holds the prompt's cache twice and the prompt's logits "
              "({gib:.2f} GiB beyond the weights)").format(gib=step_bytes / 2**30),
            "transformers <= 4.41 generation/utils.py sample/greedy_search (previous outputs alive); PR 30536")
