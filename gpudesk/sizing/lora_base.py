"""Two LoRA settings that change what the frozen base and the trainable set hold: an 8-bit (LLM.int8) base and
PEFT ``modules_to_save``.

``base_weights="int8"`` (``--base-weights int8``): the base loaded with ``load_in_8bit=True`` (transformers
``BitsAndBytesConfig(load_in_8bit=True)``), every decoder Linear a bitsandbytes ``Linear8bitLt`` with
``has_fp16_weights=False``; the embeddings and the LM head stay 16-bit (transformers
``get_keys_to_not_convert``, ``integrations/bitsandbytes.py``).

- Storage: ``Int8Params`` quantises each weight row-wise to int8 (``CB``, 1 byte a weight) with one fp32 scale a
  row (``SCB``, 4 bytes per output feature; ``bitsandbytes/nn/modules.py`` ``Int8Params._quantize``,
  https://github.com/bitsandbytes-foundation/bitsandbytes/blob/main/bitsandbytes/nn/modules.py; Dettmers et al.
  2022, "LLM.int8()", arXiv 2208.07339, section 3.1 vector-wise quantisation). Norms stay at 16 bits.
- Saved for backward: ``MatMul8bitLt.forward`` keeps the 16-bit input ``A`` of every 8-bit Linear whenever the
  input needs a gradient (``ctx.tensors = (CAt, subA, A)``, ``bitsandbytes/autograd/_functions.py``), which it
  does under LoRA (the gradient flows through the frozen layers to the adapters below). So every distinct Linear
  input of a kept layer is kept, as old bitsandbytes 4-bit Linears did
  (:func:`gpudesk.sizing.activations_lora.frozen_layer_activation_bytes` with its ``legacy_bnb_matmul`` path).
  bitsandbytes before 0.45 also keeps ``CAt``, an int8 transposed copy of that input (1 byte an element); from
  0.45 (the LLM.int8 refactor, PR 1401) ``CAt`` is computed only when the weight needs a gradient. It is not
  counted: under gradient checkpointing one layer's worth, below 1 % of these runs.
- Workspace: ``MatMul8bitLt.backward`` builds the input gradient from a dequantised 16-bit copy of the weight
  (``CB = state.CB.to(ctx.dtype_A, copy=True).mul_(state.SCB ...)``; GPUs without int8 tensor cores do the same in
  forward), one matrix at a time: the largest Linear x 2 bytes, as QLoRA's dequantisation buffer. The outlier
  columns of the mixed-precision decomposition (threshold 6.0: ``subA``, ``state.subB``) are a few columns wide.

``base_weights="fp32"`` (``--base-weights fp32``, with ``--sharding fsdp`` or ``zero3``): the model is loaded in fp32
and FSDP's mixed precision casts each unit to the 16-bit compute dtype when it gathers it, frozen base included.
PyTorch FSDP2 ``fully_shard(..., mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16))`` keeps the sharded
parameters in their stored dtype and all-gathers a ``param_dtype`` copy per unit for forward and again for backward
(``torch/distributed/fsdp/_fully_shard/_fsdp_param.py`` ``FSDPParam.init_all_gather_outputs`` /
``all_gather_inputs``, torch v2.5+), also on one GPU, where the "all-gather" is that cast copy. prime-rl loads its
model in ``optimization_dtype`` (default float32) and wraps it that way, LoRA included (src/prime_rl/trainer/model.py
``setup_model``: ``get_model(..., dtype=DTYPE_MAP[config.optimization_dtype])``, then ``setup_fsdp`` with
``MixedPrecisionPolicy(param_dtype=bfloat16, reduce_dtype=float32)``, config.py at b798a90d). The base then holds 4
bytes a parameter (divided over the FSDP GPUs) and two blocks' 16-bit copies are gathered, as for a sharded 16-bit
base.

``modules_to_save`` (``--modules-to-save embed_tokens,lm_head``): PEFT wraps each named module in a
``ModulesToSaveWrapper`` that keeps the original frozen and trains a ``copy.deepcopy`` of it
(``peft/utils/other.py`` ``ModulesToSaveWrapper.update``, https://github.com/huggingface/peft/blob/v0.13.2/src/peft/utils/other.py).
The copies are full trainable parameters beside the adapters: the same bytes a trainable parameter (16-bit copy
and gradient, fp32 master, optimizer states) and the same ZeRO partitioning. A tied embedding gets two separate
copies (one per wrapped module), so the tie is undone. ``norms`` names every normalisation layer (the two
RMSNorms of each block and the final one: PEFT ``modules_to_save=["input_layernorm", "post_attention_layernorm",
"norm"]``; ms-swift's ``--lora_modules_to_save EMBEDDING LN`` names the input embedding and every norm, as in
its examples/pytorch/llm/scripts/yi_9b/lora_ddp/sft.sh at 090bbec15, the fresh-55 Yi-9B row): one ``hidden``-wide
gain each, ``(2 x layers + 1) x hidden`` parameters.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.checks import choice
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.lora_modules import LLAMA_MODULES, module_dims
from gpudesk.sizing.shapes import ModelSpec

# The frozen base at --precision, bitsandbytes LLM.int8, or stored in fp32 under FSDP mixed precision.
LORA_BASE_WEIGHTS = ("precision", "int8", "fp32")
# The module names a trainable full copy is sized for: PEFT's, and ``norms`` for every normalisation layer.
MODULES_TO_SAVE = ("embed_tokens", "lm_head", "norms")
INT8_SCALE_BYTES = 4.0  # fp32 SCB, one per output row (Int8Params)


def int8_linear_params(spec: ModelSpec) -> tuple[float, float]:
    """(weights, output rows) of the decoder Linears that ``load_in_8bit`` converts, over all layers.

    Raises:
        SizingError: a model without a transformer shape, or a mixture-of-experts model (its expert Linears are not
            the seven projections counted here).
    """
    if not spec.is_transformer or not spec.layers:
        raise SizingError("base_weights", _("an 8-bit base needs the model's transformer shape (give a config.json)."))
    if spec.moe_experts:
        raise SizingError("base_weights", _("an 8-bit base is modelled for dense models only, not mixture-of-experts."))
    weights = rows = 0.0
    for name in LLAMA_MODULES:
        d_in, d_out = module_dims(spec, name)
        weights += d_in * d_out
        rows += d_out
    layers = spec.transformer_dims.layers
    return weights * layers, rows * layers


def int8_base_bytes(spec: ModelSpec, sixteen_bit_bytes: float = 2.0) -> float:
    """Bytes of a frozen base loaded with ``load_in_8bit``: int8 Linears with fp32 row scales, the rest
    (embeddings, LM head, norms) at ``sixteen_bit_bytes``."""
    linear, rows = int8_linear_params(spec)
    linear = min(linear, float(spec.params))
    return linear * 1.0 + rows * INT8_SCALE_BYTES + (spec.params - linear) * sixteen_bit_bytes


def int8_dequant_workspace_bytes(spec: ModelSpec) -> float:
    """The 16-bit dequantised copy of the largest Linear that ``MatMul8bitLt.backward`` builds."""
    return max(module_dims(spec, n)[0] * module_dims(spec, n)[1] for n in LLAMA_MODULES) * 2.0


def check_modules_to_save(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The named modules, checked: each once, each one of :data:`MODULES_TO_SAVE`.

    Raises:
        SizingError: an unknown or repeated name.
    """
    out: list[str] = []
    for raw in names:
        name = choice("modules_to_save", str(raw).strip().lower(), MODULES_TO_SAVE)
        if name in out:
            raise SizingError("modules_to_save", _("{name} is named twice.").format(name=name))
        out.append(name)
    return tuple(out)


def modules_to_save_params(spec: ModelSpec, names: tuple[str, ...] | list[str]) -> int:
    """Parameters of the trainable copies PEFT makes of ``names`` (``embed_tokens`` / ``lm_head`` each
    ``vocab x hidden``, ``norms`` ``(2 x layers + 1) x hidden``).

    Raises:
        SizingError: an unknown name, or a model without a vocabulary and hidden size.
    """
    checked = check_modules_to_save(names)
    if not checked:
        return 0
    tables = [n for n in checked if n != "norms"]
    if tables and (not spec.vocab_size or not spec.hidden_size):
        raise SizingError("modules_to_save", _("trainable copies of the embeddings need the model's vocabulary and "
                                               "hidden size (give a config.json)."))
    norms = (2 * (spec.layers or 0) + 1) * (spec.hidden_size or 0) if "norms" in checked else 0
    return len(tables) * (spec.vocab_size or 0) * (spec.hidden_size or 0) + norms
