"""The five questions of the method as wizard pages (seed/DIGEST.md §4), plus the cost assumptions.

Every field maps one-to-one onto a :class:`gpudesk.planner.Requirement` field (``section.name``; see
gpudesk/planner/requirement.py for units and meaning). Defaults are the Requirement's own defaults, so an
untouched wizard produces the same requirement as an empty profile. Display units convert to the stored
units (bytes, seconds, watts, fractions) through each spec's ``scale``.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication

from gpudesk.planner import DataIO, ModelMemory, Operations, SoftwareStack, TcoAssumptions, WorkloadMix
from gpudesk.planner.requirement import DECODE_PATHS, MODALITIES, PRECISIONS, RECOMPUTE_CHOICES
from gpudesk.sizing import SHARDING_MODES, parse_param_count
from gpudesk.sizing.activations import DEFAULT_VOCAB_CHUNK_COLUMNS, LOSS_MODES
from gpudesk.sizing.activations_lora import LORA_KERNELS
from gpudesk.sizing.dtypes import WEIGHT_FORMAT_CHOICES
from gpudesk.sizing.lora_base import LORA_BASE_WEIGHTS
from gpudesk.sizing.error_band import FRAMEWORKS
from gpudesk.sizing.decode_attention import DECODE_ATTENTIONS
from gpudesk.sizing.eager_softmax import EAGER_SOFTMAX
from gpudesk.sizing.fsdp2_no_sync import FSDP2_NO_SYNC
from gpudesk.sizing.load_cast import LOAD_DTYPES
from gpudesk.sizing.gptq_scratch import GPTQ_KERNELS
from gpudesk.sizing.memory import MODES
from gpudesk.sizing.memory_inference import KV_CACHE_IMPLS, MLA_DECODE_WEIGHTS, PROMPT_LOGITS
from gpudesk.sizing.loading import WEIGHT_LOADERS
from gpudesk.sizing.memory_train import OFFLOAD_MODES
from gpudesk.sizing.optimizers import (
    LEGACY_ACCOUNTING,
    OPTIMIZER_ALIASES,
    OPTIMIZER_IMPLS,
    OPTIMIZER_NAMES,
    optimizer_alias_groups,
)
from gpudesk.sizing.overheads import CUDA_MAJOR_VERSIONS
from gpudesk.sizing.zero3_params import ZERO3_DEFAULTS
from gpudesk.ui.plan.fields import FieldSpec, PageSpec

TB = 1e12
GB = 1e9
MB = 1e6
DAY = 86400.0

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_DEFAULTS: dict[str, DataclassInstance] = {
    "data": DataIO(),
    "model": ModelMemory(),
    "workload": WorkloadMix(),
    "software": SoftwareStack(),
    "operations": Operations(),
    "tco": TcoAssumptions(),
}


def default(key: str) -> Any:
    """The Requirement's default for ``section.name``."""
    section, name = key.split(".", 1)
    value = getattr(_DEFAULTS[section], name)
    return list(value) if isinstance(value, list) else value


# Spelled out at every call so that lupdate sees each source text (a wrapper taking a variable hides them).
translate = QCoreApplication.translate


def _plain(values: tuple[str, ...]) -> tuple[tuple[Any, str], ...]:
    return tuple((v, v) for v in values)


def _f(key: str, label: str, **kw: Any) -> FieldSpec:
    kw.setdefault("default", default(key))
    return FieldSpec(key=key, label=label, **kw)


def optimizer_tooltip() -> str:
    """The Optimizer field's help. Its name lists come from the alias table the sizing reads
    (:func:`gpudesk.sizing.optimizers.optimizer_alias_groups`, :data:`~gpudesk.sizing.optimizers.LEGACY_ACCOUNTING`),
    so a name added there is listed here; only the notes on what a group keeps are written in this file."""
    paged_note = translate("PlanQuestions", "states outside PyTorch's allocator")
    notes = {
        ("adam-8bit", True): paged_note,
        ("adam", True): paged_note,
        ("sgd", False): translate("PlanQuestions", "with momentum: one state"),
        ("sgd-plain", False): translate("PlanQuestions", "momentum 0: no state"),
        ("muon", False): translate("PlanQuestions", "one state for hidden matrices, AdamW for embeddings, head and norms"),
    }
    accounting_notes = {
        "adam-16": translate("PlanQuestions", "ZeRO paper"),
        "adam-18": translate("PlanQuestions", "Megatron/DeepSpeed"),
        "adam-20": translate("PlanQuestions", "MT-NLG"),
    }
    sep = translate("PlanQuestions", ", ", "between the names of a list")
    groups = []
    for family, paged, names in optimizer_alias_groups():
        note = notes.get((family, paged))
        also = sep.join(names[1:])
        if also and note:
            text = translate("PlanQuestions", "%1 (also %2; %3)").replace("%2", also).replace("%3", note)
        elif also:
            text = translate("PlanQuestions", "%1 (also %2)").replace("%2", also)
        elif note:
            text = translate("PlanQuestions", "%1 (%2)").replace("%2", note)
        else:
            text = "%1"
        groups.append(text.replace("%1", names[0]))
    accounting = []
    for name in LEGACY_ACCOUNTING:
        if name in OPTIMIZER_ALIASES:  # sgd: already listed with its aliases
            continue
        note = accounting_notes.get(name)
        accounting.append(translate("PlanQuestions", "%1 (%2)").replace("%2", note).replace("%1", name) if note else name)
    return translate("PlanQuestions", "%1; or an accounting: %2.").replace("%2", sep.join(accounting)).replace(
        "%1", sep.join(groups))


def _catalog_choices(catalog: Any, what: str) -> list[tuple[Any, str]]:
    if catalog is None:
        return []
    if what == "models":
        return [(m.id, f"{m.name} ({m.params / 1e9:.2f} B)") for m in catalog.models()]
    if what == "servers":
        return [(s.id, s.name) for s in catalog.servers()]
    if what == "networks":
        return [(link.id, link.name) for link in catalog.links() if link.kind == "network"]
    raise ValueError(what)


def data_page() -> PageSpec:
    return PageSpec(
        "data",
        translate("PlanQuestions", "1. Data and I/O"),
        translate("PlanQuestions", "How much data, how big is a sample, and where does loading stall?"),
        [
            _f("data.dataset_bytes", translate("PlanQuestions", "Dataset size"), kind="int", unit="TB", scale=TB, maximum=1e6, minimum=0, exclusive_minimum=True, optional=True,
               tooltip=translate("PlanQuestions", "Total size on storage, decimal terabytes (1 TB = 10^12 bytes).")),
            _f("data.sample_count", translate("PlanQuestions", "Samples"), kind="int", minimum=0, exclusive_minimum=True, optional=True,
               tooltip=translate("PlanQuestions", "Training samples (pairs, images, volumes, sequences); 20,000,000 or 20000000. Needed for training.")),
            _f("data.sample_bytes", translate("PlanQuestions", "Average sample size"), kind="int", unit="MB", scale=MB, maximum=1e6, minimum=0, exclusive_minimum=True, optional=True,
               tooltip=translate("PlanQuestions", "Bytes read per sample from storage, decimal megabytes.")),
            _f("data.modality", translate("PlanQuestions", "Modality"), kind="choice", choices=_plain(MODALITIES),
               tooltip=translate("PlanQuestions", "Video and 3D volumes make the workload 'multimodal / long-sequence'.")),
            _f("data.epochs", translate("PlanQuestions", "Epochs"), minimum=0, exclusive_minimum=True, tooltip=translate("PlanQuestions", "Passes over the data.")),
            _f("data.storage_read_bytes_per_s", translate("PlanQuestions", "Storage read throughput"), unit="GB/s", scale=GB, maximum=1e4, minimum=0, exclusive_minimum=True, optional=True,
               tooltip=translate("PlanQuestions", "What the storage delivers to this machine (decimal GB/s); empty when not known.")),
            _f("data.decode_path", translate("PlanQuestions", "Decoding on"), kind="choice", choices=_plain(DECODE_PATHS),
               tooltip=translate("PlanQuestions", "cpu: the DataLoader decodes; gpu: DALI / nvJPEG decoding on the GPU (the article's fix that halved epoch time).")),
            _f("data.decode_bytes_per_s", translate("PlanQuestions", "Measured decoder throughput"), unit="GB/s", scale=GB, maximum=1e4, minimum=0, exclusive_minimum=True, optional=True,
               tooltip=translate("PlanQuestions", "Empty: the planner's default for the decode path.")),
        ],
    )


MODEL_SOURCES = ("model.model", "model.params", "model.config_path")  # the model answers: give exactly one


def keep_one_model_source(editors: dict, key: str, value: Any) -> None:
    """When ``key`` is a model answer that was just given, clear the other model answers.

    One model answer at a time: a parameter count or a config.json clears the catalog model (and the other way
    round); with two, the preview kept the catalog model and the typed answer did nothing.
    """
    if key not in MODEL_SOURCES or value in (None, ""):
        return
    for other in MODEL_SOURCES:
        if other != key and other in editors and editors[other].value()[0] not in (None, ""):
            editors[other].set_value(None)


def model_page(catalog: Any) -> PageSpec:
    models = ((None, translate("PlanQuestions", "(none: give a parameter count or a config.json)")),) + tuple(_catalog_choices(catalog, "models"))
    return PageSpec(
        "model",
        translate("PlanQuestions", "2. Model and memory"),
        translate("PlanQuestions", "Which model, trained how, and where does memory peak?"),
        [
            _f("model.model", translate("PlanQuestions", "Catalog model"), kind="choice", choices=models,
               tooltip=translate("PlanQuestions", "A model from the catalog (exact shape). Give only one of catalog model, parameter count, config.json.")),
            _f("model.params", translate("PlanQuestions", "Parameter count"), kind="int", unit=translate("PlanQuestions", "billion"), scale=GB, maximum=1e5, minimum=0, exclusive_minimum=True, optional=True,
               text_parser=parse_param_count,
               tooltip=translate("PlanQuestions", "When the model is not in the catalog: its size in billions (13), or with a suffix (350M, 1.3B); "
                           "the shape is then inferred (flagged as a guess).")),
            _f("model.config_path", translate("PlanQuestions", "Hugging Face config.json"), kind="text", optional=True,
               tooltip=translate("PlanQuestions", "Path of a local config.json (read offline; nothing is downloaded).")),
            _f("model.mode", translate("PlanQuestions", "Method"), kind="choice", choices=_plain(MODES),
               tooltip=translate("PlanQuestions", "train: full training or full fine-tune; lora / qlora: adapters; inference: serving.")),
            _f("model.precision", translate("PlanQuestions", "Training precision"), kind="choice", choices=_plain(PRECISIONS),
               tooltip=translate("PlanQuestions", "BF16 is the safe default (Ampere and newer): 16-bit compute over fp32 master weights, also what FSDP under Accelerate's bf16 mixed precision (HF Trainer --bf16) makes of a model loaded in bf16 (Accelerate 0.30 and later upcast the shards). bf16-pure: parameters, gradients and optimizer states all in bf16 (torchtune dtype bf16; HF Trainer without --bf16).")),
            _f("model.optimizer", translate("PlanQuestions", "Optimizer"), kind="choice", choices=_plain(OPTIMIZER_NAMES),
               tooltip=optimizer_tooltip()),
            _f("model.seq_len_tokens", translate("PlanQuestions", "Sequence length"), kind="int", unit=translate("PlanQuestions", "tokens"), minimum=1),
            _f("model.longest_sample_tokens", translate("PlanQuestions", "Longest sample"), kind="int", unit=translate("PlanQuestions", "tokens"), minimum=1, optional=True,
               tooltip=translate("PlanQuestions", "Training with batches padded to their longest sample (no packing): the longest tokenised sample the run meets (over a full epoch, the dataset's longest). The peak batch is the shorter of it and the sequence length (the truncation cap); empty: batches reach the sequence length.")),
            _f("model.decoder_seq_len_tokens", translate("PlanQuestions", "Decoder length"), kind="int", unit=translate("PlanQuestions", "tokens"), minimum=1, optional=True,
               tooltip=translate("PlanQuestions", "Full training of an encoder-decoder (T5, BART) whose targets are padded to their own length: the decoder's tokens; its layers, cross-attention and logits are sized at this length. Empty: the sequence length.")),
            _f("model.micro_batch_size", translate("PlanQuestions", "Micro-batch per GPU"), kind="int", unit=translate("PlanQuestions", "samples"), minimum=1),
            _f("model.global_batch_size", translate("PlanQuestions", "Global batch"), kind="int", unit=translate("PlanQuestions", "samples"), minimum=1, optional=True,
               tooltip=translate("PlanQuestions", "Empty: micro-batch x data-parallel GPUs.")),
            _f("model.recompute", translate("PlanQuestions", "Activation recomputation"), kind="choice", choices=_plain(RECOMPUTE_CHOICES),
               tooltip=translate("PlanQuestions", "auto: the planner picks the cheapest setting that fits (Korthikanti et al. 2022).")),
            _f("model.recompute_layers", translate("PlanQuestions", "Recomputed layers per stage"), kind="int", unit=translate("PlanQuestions", "layers"), minimum=0, optional=True,
               tooltip=translate("PlanQuestions", "With full recompute in full training: only this many layers of each pipeline stage (of the model without pipeline parallelism) are recomputed; the others keep every activation (Megatron-LM --recompute-method block --recompute-num-layers; torchtitan selective_ac_option k recomputes layers / k). Empty: all layers.")),
            _f("model.recompute_modules", translate("PlanQuestions", "Recompute modules (comma-separated)"), kind="list", optional=True,
               tooltip=translate("PlanQuestions", "What selective recompute redoes in backward (Megatron-Core --recompute-modules): core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts. Empty: the framework's default set.")),
            _f("model.mtp_layers", translate("PlanQuestions", "Multi-token prediction depths"), kind="int", minimum=0,
               tooltip=translate("PlanQuestions", "MTP modules trained with the model (DeepSeek-V3; Megatron-Core --mtp-num-layers): each is one more transformer layer and output-head pass.")),
            _f("model.flash_attention", translate("PlanQuestions", "FlashAttention"), kind="bool"),
            _f("model.moe_permute_fusion", translate("PlanQuestions", "MoE token permutation"), kind="choice",
               choices=((None, translate("PlanQuestions", "framework default")), (True, translate("PlanQuestions", "fused kernels")),
                        (False, translate("PlanQuestions", "unfused"))), optional=True,
               tooltip=translate("PlanQuestions", "Megatron-Core --moe-permute-fusion: the MoE layers permute tokens to their experts in fused kernels. Framework default: off in Megatron-LM, on in NeMo / Megatron-Bridge.")),
            _f("model.sharding", translate("PlanQuestions", "Sharding"), kind="choice", choices=_plain(("auto",) + SHARDING_MODES),
               tooltip=translate("PlanQuestions", "DDP, ZeRO-1/2/3 or FSDP; auto: the least costly that fits.")),
            _f("model.offload", translate("PlanQuestions", "Offload to host"), kind="choice", choices=_plain(OFFLOAD_MODES)),
            _f("model.tensor_parallel", translate("PlanQuestions", "Tensor parallel"), kind="int", unit=translate("PlanQuestions", "GPUs"), minimum=1),
            _f("model.expert_parallel", translate("PlanQuestions", "Expert parallel"), kind="int", unit=translate("PlanQuestions", "GPUs"), minimum=1,
               tooltip=translate("PlanQuestions", "Full training or LoRA (16/32-bit base) of an MoE model: the routed experts are spread over this many GPUs of each pipeline stage, each holding experts / N whole experts; their optimizer states are sharded over the GPUs that hold the same experts (Megatron-LM --expert-model-parallel-size). 1: every GPU holds every expert.")),
            _f("model.expert_tensor_parallel", translate("PlanQuestions", "Expert tensor parallel"), kind="int", unit=translate("PlanQuestions", "GPUs"), minimum=1, optional=True,
               tooltip=translate("PlanQuestions", "Full training with expert parallelism: each routed expert's matrices are split over this many GPUs (Megatron-LM --expert-tensor-parallel-size). Empty: the tensor-parallel size.")),
            _f("model.sequence_parallel", translate("PlanQuestions", "Sequence parallel (with tensor parallel)"), kind="bool"),
            _f("model.sp_gathered_inputs", translate("PlanQuestions", "Sequence parallel saves gathered inputs"), kind="bool",
               tooltip=translate("PlanQuestions", "PyTorch DTensor sequence parallel (torchtitan): the column-parallel linears keep their all-gathered input for backward; Megatron-LM keeps the shard and gathers again.")),
            _f("model.context_parallel", translate("PlanQuestions", "Context parallel"), kind="int", unit=translate("PlanQuestions", "GPUs"), minimum=1,
               tooltip=translate("PlanQuestions", "The sequence is split over this many GPUs (ring attention, or Ulysses all-to-all over the attention heads).")),
            _f("model.loss", translate("PlanQuestions", "Cross-entropy loss"), kind="choice", choices=_plain(LOSS_MODES),
               tooltip=translate("PlanQuestions", "standard: full fp32 logits; standard-kept: standard, with the fp32 logits the model returned kept through backward (prime-rl SFT); standard-16bit: 16-bit logits without the fp32 upcast; standard-compiled: the fp32 upcast inside a torch.compile'd loss (torchtitan since 2025-04); chunked: torchtune chunked CE; fused: Liger fused linear cross-entropy; inplace-16bit: 16-bit logits whose gradient is written in place (Unsloth); vocab-chunked: the output layer and loss walked over a few vocabulary columns at a time, logits never whole (prime-rl RL); sum-16bit: a plain sum of the 16-bit logits kept through backward, with one dense copy of its gradient (benchmarks' logits.sum()).")),
            _f("model.loss_vocab_chunk", translate("PlanQuestions", "Loss vocabulary chunk"), kind="int", unit=translate("PlanQuestions", "columns"), minimum=1,
               tooltip=translate("PlanQuestions", "With the vocab-chunked loss: vocabulary columns the output layer and loss compute at a time (prime-rl: %1).").replace("%1", str(DEFAULT_VOCAB_CHUNK_COLUMNS))),
            _f("model.optimizer_in_backward", translate("PlanQuestions", "Optimizer step in backward"), kind="bool",
               tooltip=translate("PlanQuestions", "Each parameter is updated as soon as its gradient is ready: no full gradient buffer.")),
            _f("model.activation_offload", translate("PlanQuestions", "Offload activations to host"), kind="bool"),
            _f("model.compiled", translate("PlanQuestions", "torch.compile or fused kernels"), kind="bool",
               tooltip=translate("PlanQuestions", "Compiled models save fewer activations than eager PyTorch.")),
            _f("model.fsdp_version", translate("PlanQuestions", "FSDP version"), kind="choice", choices=((1, "1"), (2, "2")),
               tooltip=translate("PlanQuestions", "With FSDP sharding: 1 = FullyShardedDataParallel (flat parameters), 2 = fully_shard.")),
            _f("model.optimizer_impl", translate("PlanQuestions", "Optimizer step implementation"), kind="choice", choices=_plain(OPTIMIZER_IMPLS),
               tooltip=translate("PlanQuestions", "foreach (PyTorch 2.x default) keeps one state-sized temporary during the step; fused and for-loop (PyTorch 1.x, HF adamw_hf) do not.")),
            _f("model.zero_grad_keeps_grads", translate("PlanQuestions", "zero_grad keeps gradients (PyTorch before 2.0)"), kind="bool"),
            _f("model.zero3_max_reuse_distance", translate("PlanQuestions", "ZeRO-3 max reuse distance"), kind="int", unit=translate("PlanQuestions", "elements"), minimum=0,
               tooltip=translate("PlanQuestions", "DeepSpeed stage3_max_reuse_distance in elements (default 1e9): gathered parameters used again within this many stay on the GPU.")),
            _f("model.zero3_max_live_parameters", translate("PlanQuestions", "ZeRO-3 max live parameters"), kind="int", unit=translate("PlanQuestions", "elements"), minimum=0,
               tooltip=translate("PlanQuestions", "DeepSpeed stage3_max_live_parameters in elements (default 1e9): the cap on prefetched parameters.")),
            _f("model.zero3_prefetch_bucket", translate("PlanQuestions", "ZeRO-3 prefetch bucket"), kind="int", unit=translate("PlanQuestions", "elements"), minimum=0, optional=True,
               tooltip=translate("PlanQuestions", "DeepSpeed stage3_prefetch_bucket_size in elements; empty: auto (0.9 x hidden^2).")),
            _f("model.zero3_persistence_threshold", translate("PlanQuestions", "ZeRO-3 persistence threshold"), kind="int", unit=translate("PlanQuestions", "elements"), minimum=0, optional=True,
               tooltip=translate("PlanQuestions", "DeepSpeed stage3_param_persistence_threshold in elements; empty: auto (10 x hidden). Smaller parameters are never partitioned.")),
            _f("model.zero3_reduce_bucket", translate("PlanQuestions", "ZeRO-3 reduce bucket"), kind="int", unit=translate("PlanQuestions", "elements"), minimum=0, optional=True,
               tooltip=translate("PlanQuestions", "DeepSpeed reduce_bucket_size in elements; empty: auto (hidden^2). A flat gradient buffer of that size stays on the GPU.")),
            _f("model.zero2_reduce_bucket", translate("PlanQuestions", "ZeRO-2 reduce bucket"), kind="int", unit=translate("PlanQuestions", "elements"), minimum=0, optional=True,
               tooltip=translate("PlanQuestions", "DeepSpeed ZeRO-2 reduce_bucket_size in elements; empty: DeepSpeed's default 5e8. The Hugging Face Trainer's \"auto\" fills hidden_size x hidden_size, Lightning's deepspeed_stage_2 2e8. The gradient bucket sits on the GPU during backward.")),
            _f("model.zero3_defaults", translate("PlanQuestions", "ZeRO-3 sizes left empty"), kind="choice", choices=_plain(ZERO3_DEFAULTS),
               tooltip=translate("PlanQuestions", "Where the three ZeRO-3 sizes left empty come from: hf-auto when the DeepSpeed config says \"auto\" (Hugging Face Trainer, accelerate with a config file); deepspeed when the config leaves them out (accelerate's DeepSpeed plugin without a config file): reduce bucket 5e8, prefetch bucket 5e7, persistence threshold 1e5.")),
            _f("model.zero3_outside_init", translate("PlanQuestions", "ZeRO-3 model built outside zero.Init"), kind="bool",
               tooltip=translate("PlanQuestions", "Full training with DeepSpeed ZeRO-3 of a model loaded before DeepSpeed's config is known (from_pretrained before TrainingArguments, or a model built before deepspeed.initialize): the engine first moves the whole model to every GPU, and F.linear is not replaced by DeepSpeed's version, so every gathered Linear weight stays allocated from its forward to its backward. Off: the model is built inside deepspeed.zero.Init.")),
            _f("model.kbit_fp32_upcast", translate("PlanQuestions", "Norms and embeddings upcast to fp32 (prepare_model_for_kbit_training)"), kind="bool",
               tooltip=translate("PlanQuestions", "PEFT's prepare_model_for_kbit_training (called by TRL's SFTTrainer for a 4-bit model on one GPU) makes the residual stream fp32.")),
            _f("model.kbit_embeddings_bf16", translate("PlanQuestions", "Embeddings and LM head back in bf16 (TRL, bf16)"), kind="bool",
               tooltip=translate("PlanQuestions", "TRL's SFTTrainer under bf16 makes the norms fp32 (an fp32 residual stream) and casts the embeddings and LM head back to bf16 after the fp32 upcast; without the upcast they stay as loaded.")),
            _f("model.fsdp1_mixed_flat_params", translate("PlanQuestions", "FSDP1: adapters share flat parameters with the frozen base"), kind="bool",
               tooltip=translate("PlanQuestions", "Without a separate wrap of the LoRA adapters (PEFT fsdp_auto_wrap_policy, torchtune lora_fsdp_wrap_policy), FSDP1 allocates gradients for the frozen base too.")),
            _f("model.cuda_lazy_loading", translate("PlanQuestions", "CUDA lazy module loading"), kind="bool",
               tooltip=translate("PlanQuestions", "On since CUDA 11.7 / PyTorch 2.0; off loads every kernel at start-up (about 1.3 GiB of context).")),
            _f("model.cuda_major_version", translate("PlanQuestions", "CUDA major version of the PyTorch build"), kind="choice", choices=tuple((v, str(v)) for v in CUDA_MAJOR_VERSIONS),
               tooltip=translate("PlanQuestions", "torch.version.cuda. With lazy loading off, CUDA 10 (PyTorch 1.8 and older +cu10x wheels) loads smaller kernel libraries: about 0.9 GiB of context instead of 1.3 GiB.")),
            _f("model.framework", translate("PlanQuestions", "Framework (for the expected error only)"), kind="choice",
               choices=((None, translate("PlanQuestions", "any")),) + _plain(FRAMEWORKS), optional=True,
               tooltip=translate("PlanQuestions", "Chooses which published cases give the estimate's expected error band; the estimate itself does not change.")),
            _f("model.lora_rank", translate("PlanQuestions", "LoRA rank"), kind="int", minimum=1),
            _f("model.lora_targets", translate("PlanQuestions", "LoRA target modules (comma-separated)"), kind="list", optional=True,
               tooltip=translate("PlanQuestions", "all-linear, or module names such as q_proj, v_proj.")),
            _f("model.lora_dropout", translate("PlanQuestions", "LoRA dropout"), kind="float", minimum=0, maximum=0.99,
               tooltip=translate("PlanQuestions", "Above 0 every adapter keeps its own copy of its input for backward (PEFT's default is 0).")),
            _f("model.legacy_bnb_matmul", translate("PlanQuestions", "bitsandbytes older than 0.43.2 (QLoRA)"), kind="bool",
               tooltip=translate("PlanQuestions", "Old bitsandbytes keeps the input of every 4-bit Linear for backward, frozen ones included.")),
            _f("model.nonreentrant_checkpoint", translate("PlanQuestions", "Non-reentrant checkpointing"), kind="bool",
               tooltip=translate("PlanQuestions", "Whole-layer recompute with use_reentrant=False: a bitsandbytes base (old 4-bit, or 8-bit) keeps every layer's Linear inputs from forward to backward. Off: reentrant, transformers' default.")),
            _f("model.lora_kernels", translate("PlanQuestions", "LoRA kernels"), kind="choice", choices=_plain(LORA_KERNELS),
               tooltip=translate("PlanQuestions", "peft: one autograd node per Linear and adapter; fused: Unsloth's fused LoRA blocks keep only the MLP input and the gate and up outputs.")),
            _f("model.base_weights", translate("PlanQuestions", "LoRA base weights"), kind="choice", choices=_plain(LORA_BASE_WEIGHTS),
               tooltip=translate("PlanQuestions", "precision: the frozen base at the training precision; int8: bitsandbytes LLM.int8 (load_in_8bit), 1 byte a Linear weight, and every 8-bit Linear keeps its 16-bit input for backward; fp32: with FSDP sharding, the model loaded in fp32 and cast to the 16-bit precision unit by unit by FSDP mixed precision (prime-rl).")),
            _f("model.modules_to_save", translate("PlanQuestions", "Modules trained in full (comma-separated)"), kind="list", optional=True,
               tooltip=translate("PlanQuestions", "PEFT modules_to_save: embed_tokens, lm_head and/or norms (every norm layer) are trained as full copies beside the frozen originals, with gradients and optimizer states.")),
            _f("model.double_quant", translate("PlanQuestions", "NF4 double quantisation (QLoRA)"), kind="bool",
               tooltip=translate("PlanQuestions", "bitsandbytes bnb_4bit_use_double_quant: 4.127 bits a weight; off: 4.5 bits.")),
            _f("model.weight_loading", translate("PlanQuestions", "Weight loading"), kind="choice", choices=_plain(WEIGHT_LOADERS),
               tooltip=translate("PlanQuestions", "per-tensor: one tensor at a time; nf4-nearest-search: torchao to_nf4 before May 2024 (a large quantisation spike); fsdp1-sync-states: FSDP1 sync_module_states from rank 0. The reserved peak is the larger of loading and training.")),
            _f("model.weight_format", translate("PlanQuestions", "Inference weight format"), kind="choice", choices=_plain(WEIGHT_FORMAT_CHOICES)),
            _f("model.kv_precision", translate("PlanQuestions", "KV cache precision"), kind="choice", choices=_plain(("bf16", "fp16", "fp8", "int8"))),
            _f("model.kv_cache_impl", translate("PlanQuestions", "KV cache implementation"), kind="choice", choices=_plain(KV_CACHE_IMPLS),
               tooltip=translate("PlanQuestions", "paged: vLLM/SGLang; dynamic: HF DynamicCache kept by generate (transformers 4.42 and later); legacy-tuple: tuple past_key_values, transformers 4.41 and older (old and new cache at once, the prompt logits kept through the first step); static: gpt-fast (a causal mask quadratic in the cache length).")),
            _f("model.prompt_logits", translate("PlanQuestions", "Prefill logits"), kind="choice", choices=_plain(PROMPT_LOGITS),
               tooltip=translate("PlanQuestions", "last: only the last prompt position (transformers 4.45 and later, vLLM, SGLang); all: every prompt position in fp32 (transformers 4.44 and older generate); all-16bit: every prompt position at the 16-bit dtype (a model whose forward does not upcast its logits, e.g. OPT).")),
            _f("model.fsdp1_sync_each_batch", translate("PlanQuestions", "FSDP1 syncs every micro-batch"), kind="bool",
               tooltip=translate("PlanQuestions", "With FSDP1 and gradient accumulation: on for loops that reduce-scatter every micro-batch (torchtune, Accelerate sync_each_batch); off: full gradients accumulate on every GPU under no_sync() (Accelerate, Lightning Fabric).")),
            _f("model.fsdp2_no_sync", translate("PlanQuestions", "FSDP2 gradient sync off between micro-batches"),
               kind="choice", choices=_plain(FSDP2_NO_SYNC),
               tooltip=translate("PlanQuestions", "With FSDP2 and gradient accumulation: off when the loop reduce-scatters every micro-batch (torchtitan, torchtune); fp32 when it calls set_requires_gradient_sync(False) before the last micro-batch with an fp32 reduce dtype, so every GPU keeps its full gradients in fp32 (Accelerate since PR 3762, KempnerForge); grad-dtype: the same in the gradients' own dtype.")),
            _f("model.tp_whole_logits", translate("PlanQuestions", "Whole logits on every tensor-parallel GPU"), kind="bool",
               tooltip=translate("PlanQuestions", "Full training with tensor parallelism: on when the output layer gathers the whole vocabulary logits on every GPU for a plain cross-entropy (torchtitan without loss parallel, KempnerForge). Off: each GPU keeps its slice of the vocabulary (Megatron, loss parallel).")),
            _f("model.tp_replicated_embedding", translate("PlanQuestions", "Token embedding whole on every tensor-parallel GPU"), kind="bool",
               tooltip=translate("PlanQuestions", "Full training with tensor parallelism: on when the token embedding is left whole on every GPU (KempnerForge); its weights, gradients and optimizer states are then not divided by the tensor-parallel degree. Off: sharded (Megatron, torchtitan).")),
            _f("model.ddp_bucket_view", translate("PlanQuestions", "DDP gradients as bucket views"), kind="bool",
               tooltip=translate("PlanQuestions", "Full training with plain DDP: on when the gradients are views into the all-reduce buckets (PyTorch gradient_as_bucket_view=True, Megatron-Core); off: PyTorch DDP's default keeps a second copy of every gradient.")),
            _f("model.fp32_grad_buffer", translate("PlanQuestions", "Gradients kept in fp32"), kind="bool",
               tooltip=translate("PlanQuestions", "Full training: on when the gradients of the 16-bit parameters accumulate in an fp32 buffer, 4 bytes a parameter, allocated with the model and alive for the whole run (Megatron-LM with --bf16). Off: gradients in the parameters' own dtype.")),
            _f("model.main_grads_kept", translate("PlanQuestions", "fp32 main gradients kept between steps"), kind="bool",
               tooltip=translate("PlanQuestions", "Full training with plain DDP and fp16/bf16 parameters: on when the optimizer keeps the fp32 main gradients from one step to the next (4 bytes a parameter) and the all-reduce packs the gradients into one flat copy after backward (Megatron-LM's fp16 optimizer with local DDP before contiguous buffers, 2021). Off: the step's fp32 gradients are freed, PyTorch DDP buckets.")),
            _f("model.unfused_gelu", translate("PlanQuestions", "GELU computed op by op"), kind="bool",
               tooltip=translate("PlanQuestions", "Training in eager PyTorch whose MLP activation is the tanh GELU written as Python arithmetic (transformers gelu_new: GPT-2, GPT-J, Phi): three more MLP-wide tensors are saved a layer. Off: a fused GELU kernel (torch.compile, litgpt, Megatron).")),
            _f("model.fused_norm", translate("PlanQuestions", "Fused RMSNorm kernel"), kind="bool",
               tooltip=translate("PlanQuestions", "Training in eager PyTorch whose RMSNorms run in a fused kernel (apex FusedRMSNorm, Megatron-LM forks with --apply-layernorm-rms): no fp32 copies of the norms are saved; an eager SiLU still saves its output. Off: Python RMSNorms with an fp32 upcast (transformers, torchtune). torch.compile removes both.")),
            _f("model.grouped_kv_attention", translate("PlanQuestions", "Keys and values kept grouped"), kind="bool",
               tooltip=translate("PlanQuestions", "Training of a grouped-query (GQA) model whose attention kernel takes the keys and values as they are (flash-attn, transformers flash_attention_2, Megatron/Transformer Engine): they are saved at the key/value heads' width. Off: repeated to every query head before attention (torchtitan, torchtune, transformers sdpa or eager).")),
            _f("model.eager_softmax", translate("PlanQuestions", "Eager softmax"), kind="choice", choices=_plain(EAGER_SOFTMAX),
               tooltip=translate("PlanQuestions", "Training of 16-bit weights without a fused attention kernel: 16bit (a fused softmax kernel, 5 bytes kept per attention score), fp32 (softmax computed in fp32 and cast back, transformers' eager attention: 6 bytes) or fp32-clamped (the masked scores clamped with torch.max first, OPT: 8 bytes).")),
            _f("model.encoder_lm_head", translate("PlanQuestions", "Encoder LM head"), kind="bool",
               tooltip=translate("PlanQuestions", "Full training of an encoder (BERT, RoBERTa, DistilBERT) with its masked-language-model head over every position (BertForMaskedLM, BertLMHeadModel): the vocabulary logits, kept as the loss setting says, and the head's dense, GELU and LayerNorm are counted. Off: a classifier head with no vocabulary logits.")),
            _f("model.fsdp_root_only", translate("PlanQuestions", "FSDP wraps only the root module"), kind="bool",
               tooltip=translate("PlanQuestions", "Full training with FSDP and no auto-wrap policy (Lightning FSDPStrategy() without auto_wrap_policy, fully_shard on the model alone): the whole model is one unit, so every parameter is unsharded from forward to the end of backward and its gradient exists twice before the reduce-scatter. Off: one unit per transformer block.")),
            _f("model.fsdp1_no_rate_limiter", translate("PlanQuestions", "FSDP1 rate limiter off"), kind="bool",
               tooltip=translate("PlanQuestions", "Training with FSDP version 1 and limit_all_gathers=False (PyTorch 2.0's default): the CPU issues every unit's all-gather ahead of the GPU, so the whole model is counted unsharded at once. Off: the rate limiter keeps two units gathered.")),
            _f("model.no_kv_cache", translate("PlanQuestions", "Generate without a KV cache"), kind="bool",
               tooltip=translate("PlanQuestions", "Inference with use_cache=False: every new token re-runs the whole sequence, so no cache is kept and the peak is one forward pass over the context.")),
            _f("model.fused_qkv_load", translate("PlanQuestions", "q/k/v fused after loading"), kind="bool",
               tooltip=translate("PlanQuestions", "Inference with AutoAWQ fuse_layers=True: every layer's q, k and v are copied into one matrix before the unfused layers are freed, so the peak may be while loading.")),
            _f("model.prefill_kv_kept", translate("PlanQuestions", "Prompt keys and values kept twice"), kind="bool",
               tooltip=translate("PlanQuestions", "Inference with a static KV cache whose fused attention also returns the prompt's keys and values, which the model keeps for every layer until the prefill ends (AutoAWQ fuse_layers=True before 0.1.6, inside transformers' Llama model).")),
            _f("model.gptq_kernel", translate("PlanQuestions", "GPTQ kernel"), kind="choice", choices=_plain(GPTQ_KERNELS),
               tooltip=translate("PlanQuestions", "Inference of 4-bit GPTQ weights through AutoGPTQ's ExLlama kernels, which keep a scratch buffer for the whole run: exllama, exllama-act-order (desc_act checkpoints), exllamav2. none: kernels without one.")),
            _f("model.decode_attention", translate("PlanQuestions", "Decode attention"), kind="choice", choices=_plain(DECODE_ATTENTIONS),
               tooltip=translate("PlanQuestions", "Inference with a contiguous KV cache (KV cache implementation static, dynamic or legacy-tuple; not the default paged one): fused (a fused kernel reads the cache in place); math-16bit / math-fp32: eager decode on PyTorch's math attention backend (gpt-fast, torchao generate.py), which copies a layer's keys and values over the whole context, in fp32 from PyTorch 2.5.")),
            _f("model.load_dtype", translate("PlanQuestions", "Load dtype"), kind="choice", choices=_plain(LOAD_DTYPES),
               tooltip=translate("PlanQuestions", "Inference with 16-bit weights: weight-format (loaded as they run) or fp32 (from_pretrained without torch_dtype, then .cuda().half(): the whole fp32 model is on the GPU before the cast, and the allocator keeps its blocks reserved).")),
            _f("model.max_input_tokens", translate("PlanQuestions", "Longest input (ExLlama act-order)"), kind="int", unit=translate("PlanQuestions", "tokens"), minimum=1,
               tooltip=translate("PlanQuestions", "With the exllama-act-order kernel: the longest input its reorder buffer is sized for (AutoGPTQ max_input_length, default 2048).")),
            _f("model.tp_replicated_vocab", translate("PlanQuestions", "Embedding and LM head on every TP GPU"), kind="bool",
               tooltip=translate("PlanQuestions", "Inference with tensor parallelism that shards only the decoder blocks (lit-gpt generate/tp.py): every GPU keeps the whole embedding and LM head. Off: the vocabulary is split (vLLM, SGLang, Megatron-LM).")),
            _f("model.embeddings_on_host", translate("PlanQuestions", "Input embedding table in host memory"), kind="bool",
               tooltip=translate("PlanQuestions", "Inference engines such as ExLlama keep the embedding table on the CPU and copy only the looked-up rows to the GPU.")),
            _f("model.bnb_fp32_compute", translate("PlanQuestions", "4-bit layers compute in fp32"), kind="bool",
               tooltip=translate("PlanQuestions", "Inference of bitsandbytes 4-bit (nf4) weights loaded without bnb_4bit_compute_dtype (transformers' default float32): each layer casts its input to fp32 and, in the prefill, dequantises its weight to fp32.")),
            _f("model.mla_decode_weights", translate("PlanQuestions", "MLA decode matrices"), kind="choice", choices=_plain(MLA_DECODE_WEIGHTS),
               tooltip=translate("PlanQuestions", "DeepSeek-V2/V3 serving: up-proj: vLLM since March 2025 (a 16-bit copy of a quantised kv_b_proj); absorbed: vLLM 0.7.1 to 0.7.3 (absorbed W_Q_UK and W_UV_O); none: HF transformers.")),
            _f("model.activation_bytes_per_sample", translate("PlanQuestions", "Activations per sample (non-transformer)"), kind="int", unit="MB", scale=MB,
               maximum=1e7, minimum=0, exclusive_minimum=True, optional=True, tooltip=translate("PlanQuestions", "For CNNs and 3D U-Nets: measured or estimated activation memory per sample.")),
            _f("model.train_flops_per_sample", translate("PlanQuestions", "Training FLOPs per sample (non-transformer)"), unit="TFLOP", scale=1e12,
               maximum=1e9, minimum=0, exclusive_minimum=True, optional=True),
        ],
    )


def workload_page() -> PageSpec:
    return PageSpec(
        "workload",
        translate("PlanQuestions", "3. Training or inference"),
        translate("PlanQuestions", "How is GPU time split between training and serving, and what are the deadline and QPS?"),
        [
            _f("workload.training_share", translate("PlanQuestions", "Training share of GPU time"), unit="%", scale=0.01, minimum=0, maximum=100,
               tooltip=translate("PlanQuestions", "100 % for a training project, 0 % for a serving cluster.")),
            _f("workload.deadline_s", translate("PlanQuestions", "Deadline (time to result)"), unit=translate("PlanQuestions", "days"), scale=DAY, maximum=3650, minimum=0, exclusive_minimum=True, optional=True),
            _f("workload.tokens_to_train", translate("PlanQuestions", "Tokens to train"), unit=translate("PlanQuestions", "billion"), scale=GB, maximum=1e7, minimum=0, exclusive_minimum=True, optional=True,
               tooltip=translate("PlanQuestions", "Empty: samples x sequence length x epochs.")),
            _f("workload.target_qps", translate("PlanQuestions", "Target QPS"), unit=translate("PlanQuestions", "requests/s"), minimum=0, exclusive_minimum=True, optional=True),
            _f("workload.prompt_tokens", translate("PlanQuestions", "Prompt length"), kind="int", unit=translate("PlanQuestions", "tokens"), minimum=1),
            _f("workload.output_tokens", translate("PlanQuestions", "Output length"), kind="int", unit=translate("PlanQuestions", "tokens"), minimum=0,
               tooltip=translate("PlanQuestions", "0 for classifiers and scoring models.")),
            _f("workload.max_concurrent_sequences", translate("PlanQuestions", "Max concurrent sequences per GPU"), kind="int", minimum=1),
            _f("workload.ttft_target_s", translate("PlanQuestions", "Time to first token target"), unit=translate("PlanQuestions", "ms"), scale=1e-3, minimum=0, exclusive_minimum=True, maximum=3.6e6, optional=True,
               tooltip=translate("PlanQuestions", "Empty: no latency target. Prefill of one prompt, without queueing.")),
            _f("workload.tpot_target_s", translate("PlanQuestions", "Time per output token target"), unit=translate("PlanQuestions", "ms"), scale=1e-3, minimum=0, exclusive_minimum=True, maximum=6e4, optional=True,
               tooltip=translate("PlanQuestions", "Empty: no latency target. The batch per replica is cut until a decode step meets it.")),
        ],
    )


def software_page() -> PageSpec:
    return PageSpec(
        "software",
        translate("PlanQuestions", "4. Software stack"),
        translate("PlanQuestions", "Which framework, CUDA and libraries are locked in, and which compliance rules apply?"),
        [
            _f("software.framework", translate("PlanQuestions", "Framework"), kind="choice", choices=_plain(("pytorch", "tensorflow", "jax"))),
            _f("software.framework_version", translate("PlanQuestions", "Framework version"), kind="text", optional=True, tooltip=translate("PlanQuestions", "For example 2.0.1.")),
            _f("software.cuda_version", translate("PlanQuestions", "CUDA version"), kind="text", optional=True, tooltip=translate("PlanQuestions", "For example 12.1.")),
            _f("software.libraries", translate("PlanQuestions", "Libraries (comma-separated)"), kind="list", optional=True,
               tooltip=translate("PlanQuestions", "For example deepspeed==0.8.3, nccl==2.18.")),
            _f("software.require_ecc", translate("PlanQuestions", "Require ECC memory"), kind="bool"),
            _f("software.require_vgpu", translate("PlanQuestions", "Require vGPU"), kind="bool"),
            _f("software.require_virtualisation", translate("PlanQuestions", "Require virtualisation"), kind="bool"),
            _f("software.require_mig", translate("PlanQuestions", "Require MIG"), kind="bool"),
            _f("software.fips", translate("PlanQuestions", "FIPS 140 compliance"), kind="bool",
               tooltip=translate("PlanQuestions", "A property of the OS and driver crypto modules; the sheet lists it as a check.")),
        ],
    )


def operations_page(catalog: Any) -> PageSpec:
    servers = ((None, translate("PlanQuestions", "(buy new servers)")),) + tuple(_catalog_choices(catalog, "servers"))
    networks = tuple(_catalog_choices(catalog, "networks")) or _plain(("ib-ndr",))
    return PageSpec(
        "operations",
        translate("PlanQuestions", "5. Operations and growth"),
        translate("PlanQuestions", "What exists already (servers, slots, power, cooling), what is the budget, and what grows in six months?"),
        [
            _f("operations.existing_server", translate("PlanQuestions", "Existing server"), kind="choice", choices=servers),
            _f("operations.free_slots", translate("PlanQuestions", "Free GPU slots"), kind="int", minimum=1, optional=True),
            _f("operations.power_budget_w", translate("PlanQuestions", "Power budget for new GPUs"), unit="kW", scale=1000.0, maximum=1e5, minimum=0, exclusive_minimum=True, optional=True),
            _f("operations.cooling", translate("PlanQuestions", "Cooling"), kind="choice", choices=((None, translate("PlanQuestions", "either")), ("air", "air"), ("liquid", "liquid"))),
            _f("operations.growth_gpus_6_months", translate("PlanQuestions", "GPUs to add within 6 months"), kind="int", minimum=0),
            _f("operations.budget_usd", translate("PlanQuestions", "Purchase budget"), unit="USD", minimum=0, exclusive_minimum=True, optional=True),
            _f("operations.max_gpus", translate("PlanQuestions", "Largest GPU count to consider"), kind="int", minimum=1),
            _f("operations.allow_consumer_cards", translate("PlanQuestions", "Consumer (GeForce) cards"), kind="choice",
               choices=((None, translate("PlanQuestions", "by workload kind")), (True, translate("PlanQuestions", "allowed")), (False, translate("PlanQuestions", "not allowed"))),
               tooltip=translate("PlanQuestions", "By workload kind: only for small-model iteration (article 5.3: the seven limits of consumer cards in production).")),
            _f("operations.market", translate("PlanQuestions", "Market (where you buy)"), kind="choice",
               choices=(("global", translate("PlanQuestions", "global")), ("china", translate("PlanQuestions", "China"))),
               tooltip=translate("PlanQuestions", "Global keeps out the SKUs made for the China market only (A800, H800, H20, L20, RTX 4090 D, export-control variants); China may recommend them.")),
            _f("operations.network_link", translate("PlanQuestions", "Network between nodes"), kind="choice", choices=networks),
            _f("operations.safe_free_fraction", translate("PlanQuestions", "Memory kept free (safe line)"), unit="%", scale=0.01, minimum=0, maximum=90,
               tooltip=translate("PlanQuestions", "The method keeps 15-20 % of usable memory free: an 80 GB card is safe to about 64 GB.")),
            _f("tco.years", translate("PlanQuestions", "TCO horizon"), unit=translate("PlanQuestions", "years"), minimum=0, exclusive_minimum=True, maximum=15, tooltip=TcoAssumptions.SOURCES["years"]),
            _f("tco.electricity_usd_per_kwh", translate("PlanQuestions", "Electricity price"), unit="USD/kWh", minimum=0, maximum=5, tooltip=TcoAssumptions.SOURCES["electricity_usd_per_kwh"]),
            _f("tco.pue", translate("PlanQuestions", "PUE"), minimum=1, maximum=3, tooltip=TcoAssumptions.SOURCES["pue"]),
            _f("tco.utilisation", translate("PlanQuestions", "Average utilisation"), unit="%", scale=0.01, minimum=0, maximum=100, tooltip=TcoAssumptions.SOURCES["utilisation"]),
            _f("tco.cooling_usd_per_gpu_year", translate("PlanQuestions", "Extra cooling"), unit="USD/GPU/year", minimum=0, tooltip=TcoAssumptions.SOURCES["cooling_usd_per_gpu_year"]),
            _f("tco.ops_hours_per_server_month", translate("PlanQuestions", "Operations labour"), unit="h/server/month", minimum=0, tooltip=TcoAssumptions.SOURCES["ops_hours_per_server_month"]),
            _f("tco.ops_usd_per_hour", translate("PlanQuestions", "Labour rate"), unit="USD/h", minimum=0, tooltip=TcoAssumptions.SOURCES["ops_usd_per_hour"]),
            _f("tco.support_fraction_per_year", translate("PlanQuestions", "Support per year"), unit=translate("PlanQuestions", "% of hardware"), scale=0.01, minimum=0, maximum=100, tooltip=TcoAssumptions.SOURCES["support_fraction_per_year"]),
            _f("tco.network_install_fraction", translate("PlanQuestions", "Network and installation"), unit=translate("PlanQuestions", "% of hardware"), scale=0.01, minimum=0, maximum=100, tooltip=TcoAssumptions.SOURCES["network_install_fraction"]),
            _f("tco.residual_fraction", translate("PlanQuestions", "Residual value"), unit=translate("PlanQuestions", "% of hardware"), scale=0.01, minimum=0, maximum=100, tooltip=TcoAssumptions.SOURCES["residual_fraction"]),
            _f("tco.delay_cost_usd_per_day", translate("PlanQuestions", "Cost of each day late"), unit="USD/day", minimum=0, tooltip=TcoAssumptions.SOURCES["delay_cost_usd_per_day"]),
        ],
    )


def build_pages(catalog: Any) -> list[PageSpec]:
    """The five pages in the method's order."""
    return [data_page(), model_page(catalog), workload_page(), software_page(), operations_page(catalog)]


def covered_keys(pages: list[PageSpec]) -> set[str]:
    """Every ``section.name`` a page edits (tests check that each Requirement field is covered)."""
    return {spec.key for page in pages for spec in page.fields}


def requirement_keys() -> set[str]:
    """Every scalar ``section.name`` of a Requirement (price-override tables excluded)."""
    keys = set()
    for section, obj in _DEFAULTS.items():
        for f in fields(obj):
            if not isinstance(getattr(obj, f.name), dict):
                keys.add(f"{section}.{f.name}")
    return keys
