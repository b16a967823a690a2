"""One entry point for every memory estimate: a :class:`MemoryWorkload` (what the user runs) + a
:class:`~gpudesk.sizing.shapes.ModelSpec` -> :class:`~gpudesk.sizing.estimate.MemoryEstimate`.

The wizard's live chart and ``gpudesk estimate memory`` call :func:`estimate_memory`; the formulas live in
memory_train, memory_lora and memory_inference.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from gpudesk.i18n import _, ngettext
from gpudesk.sizing.activations import DEFAULT_VOCAB_CHUNK_COLUMNS
from gpudesk.sizing.checks import MAX_SEQ_LEN_TOKENS, choice, positive_int
from gpudesk.sizing.driver_reserved import check_driver_reserved_mib, with_driver_reserved
from gpudesk.sizing.dtypes import CHECKPOINT_WEIGHT_FORMAT
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.estimate import MemoryEstimate
from gpudesk.sizing.encoder_lm_head import encoder_lm_head_note
from gpudesk.sizing.fused_norm import fused_norm_note
from gpudesk.sizing.memory_inference import inference_memory
from gpudesk.sizing.memory_lora import lora_memory
from gpudesk.sizing.memory_train import train_memory
from gpudesk.sizing.mode_settings import check_mode_settings
from gpudesk.sizing.overheads import CUDA_MAJOR_VERSIONS, Overheads, eager_context_bytes
from gpudesk.sizing.pipeline import step_batching
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.recompute_layers import check_recompute_layers
from gpudesk.sizing.zero3_outside_init import check_zero3_outside_init
from gpudesk.sizing.zero3_params import (
    DEFAULT_MAX_LIVE_PARAMETERS,
    DEFAULT_MAX_REUSE_DISTANCE,
    ZERO3_DEFAULTS,
    Zero3Settings,
)

MODES = ("train", "lora", "qlora", "inference")
DEEPSPEED_STAGES = ("zero1", "zero2", "zero3")


@dataclass(frozen=True)
class MemoryWorkload:
    """What runs on the GPUs, in the terms the memory formulas use.

    Attributes:
        mode: ``train`` (full training / fine-tuning), ``lora``, ``qlora`` or ``inference``.
        precision: compute precision (``bf16``, ``fp16``, ``fp32``, ``fp8``).
        optimizer: accounting name (``adam-16``, ``adam-18``, ``adam-20``, ``adamw-bf16``, ``adam-8bit``, ``sgd``).
        seq_len_tokens: training sequence length: the length every batch is padded or packed to, or the cap
            samples are truncated at (torchtune ``max_seq_len``, TRL ``max_seq_length``) when batches are padded
            to their longest sample.
        longest_sample_tokens: training with batches padded to their longest sample (no packing): the longest
            tokenised sample the run meets (over a full epoch, the dataset's longest; a short benchmark run meets
            only the samples of its steps). The peak is the batch holding it, ``min(seq_len_tokens,
            longest_sample_tokens)`` tokens a row (:func:`peak_batch_tokens`); None: batches reach
            ``seq_len_tokens`` (packing, ``padding="max_length"``, or samples longer than the cap).
        micro_batch_size: sequences per GPU per micro-step (training).
        gpus: GPUs of the job (per-GPU figures are returned).
        sharding: ``ddp``/``zero1``/``zero2``/``zero3``/``fsdp``/``fsdp-grad-op``.
        offload: ``none``/``optimizer``/``all``.
        recompute: ``none``/``selective``/``full``.
        flash_attention: fused attention (no s x s scores stored).
        tensor_parallel, sequence_parallel: Megatron-style model parallelism.
        lora_rank, lora_targets: adapter rank and target modules (``all-linear``, ``attention``, names).
        weight_format: inference weights (``bf16``, ``fp8``, ``int8``, ``int4-g128``, ``nf4-dq``, ``mxfp4`` ...;
            ``checkpoint``: as the published checkpoint stores them). Inference only: training keeps its weights
            at ``precision`` (a 4-bit base is ``mode="qlora"``).
        kv_precision: KV-cache precision.
        context_tokens: inference prompt + output tokens per sequence.
        concurrent_sequences: sequences served at once (inference batch).
        paged_block_tokens: KV block size (None: contiguous cache).
        activation_bytes_per_sample: for non-transformer models (CNN, 3D U-Net): measured or derived bytes.
        overheads: CUDA context, NCCL, runtime and fragmentation assumptions.
        loss: ``standard`` (full fp32 logits), ``chunked`` (torchtune chunked CE) or ``fused`` (Liger fused linear CE),
            and the other :data:`gpudesk.sizing.activations.LOSS_MODES`.
        loss_vocab_chunk: vocabulary columns of one chunk with ``loss="vocab-chunked"``; None: not set (that loss
            then walks :data:`gpudesk.sizing.activations.DEFAULT_VOCAB_CHUNK_COLUMNS`; any other loss refuses a chunk).
        optimizer_in_backward: step each parameter in backward (no full gradient buffer).
        activation_offload: saved activations moved to host memory (torchtune).
        context_parallel: sequence split over this many GPUs (ring attention, torchtitan CP; Ulysses sequence
            parallelism): full training, LoRA and QLoRA.
        compiled: torch.compile / fused kernels (fewer saved activations than eager PyTorch).
        gradient_accumulation: gradients of earlier micro-batches stay alive during the forward pass.
        fsdp_version: 1 (``FullyShardedDataParallel``, flat parameters) or 2 (``fully_shard``, per-parameter
            DTensors) when ``sharding="fsdp"``.
        zero_grad_keeps_grads: ``zero_grad()`` zero-fills instead of freeing (PyTorch < 2.0 default).
        cuda_lazy_loading: CUDA >= 11.7 lazy module loading (``CUDA_MODULE_LOADING=LAZY``; PyTorch sets it when the
            variable is unset from 1.13 on, and the CUDA Programming Guide's "Lazy Loading" needs an R515+ driver --
            both recalled, not re-read at a commit: memfix33 in tests/fixtures/sizing/README.md); off loads every
            kernel at start-up (a 1.3 GiB context, transformers memory-anatomy guide): CUDA < 11.7, an older
            driver, PyTorch < 1.13 without the variable, or ``CUDA_MODULE_LOADING=EAGER``.
        cuda_major_version: the CUDA major version the PyTorch build uses (``torch.version.cuda``): with lazy
            loading off, 10 (or earlier) gives CUDA 10's smaller eager context (877 MiB,
            :data:`gpudesk.sizing.overheads.EAGER_CUDA10_CONTEXT_BYTES`); lazy loading needs 11.7 or later.
        driver_reserved_mib: the framebuffer the NVIDIA driver reserves on each GPU (nvidia-smi -q "Reserved"),
            added to the device figure only: set it when the device reading includes it (NVML's v1
            ``nvmlDeviceGetMemoryInfo`` ``used``: py3nvml, pynvml without ``version=2``); 0 (default) for
            nvidia-smi's "Used" and a process's own reading (:mod:`gpudesk.sizing.driver_reserved`).
        kv_cache_impl: inference KV cache: ``paged`` (vLLM/SGLang), ``dynamic`` (HF DynamicCache kept by
            ``generate``, transformers >= 4.42), ``legacy-tuple`` (tuple ``past_key_values``, transformers <= 4.41
            ``generate``: :mod:`gpudesk.sizing.tuple_cache_step`), ``static`` (gpt-fast, quadratic causal mask) or
            ``static-linear-mask``.
        prompt_logits: inference prefill logits: ``last`` (the last prompt position; transformers >= 4.45, vLLM,
            SGLang), ``all`` (every prompt position upcast to fp32: transformers <= 4.44 ``generate``) or
            ``all-16bit`` (every prompt position at the 16-bit dtype: a forward that does not upcast, e.g. OPT).
        fsdp1_no_sync: full training under FSDP1 with gradient accumulation enters ``no_sync()`` for the
            non-final micro-batches (HF Accelerate, Lightning Fabric): full unsharded gradients on every rank;
            False: a loop that reduce-scatters every micro-batch (torchtune, Accelerate ``sync_each_batch``).
        fsdp2_no_sync: full training under FSDP2 with gradient accumulation in a loop that turns gradient sync off
            on the non-final micro-batches: ``off`` (default; torchtitan, torchtune), ``fp32`` (unsharded
            gradients kept in the fp32 reduce dtype) or ``grad-dtype`` (:mod:`gpudesk.sizing.fsdp2_no_sync`).
        tp_whole_logits / tp_replicated_embedding: full training with tensor parallelism whose output layer gathers
            the whole logits on every rank (no loss parallel) / whose token embedding stays whole on every rank
            (:mod:`gpudesk.sizing.tp_training_vocab`).
        decoder_seq_len_tokens: full training of an encoder-decoder (T5, BART) whose targets are padded to their
            own length: the decoder layers, cross-attention and logits at that length
            (:mod:`gpudesk.sizing.decoder_length`); None: the decoder at ``seq_len_tokens``.
        ddp_bucket_view: full training under PyTorch DDP with ``gradient_as_bucket_view=True`` (or Megatron-Core's
            DDP, whose gradient buffer is the bucket): the gradients are views into the all-reduce buckets, no
            second copy (:func:`gpudesk.sizing.memory_train.ddp_bucket_bytes`).
        fp32_grad_buffer: full training whose 16-bit parameters accumulate and reduce their gradients in an fp32
            buffer (Megatron-LM with ``--bf16``): 4 bytes a parameter, allocated with the model and held for the
            whole run, and the buckets' own storage under plain data parallelism
            (:mod:`gpudesk.sizing.fp32_grad_buffer`).
        main_grads_kept: full training of 16-bit parameters with fp32 master weights under plain data parallelism
            whose optimizer keeps the fp32 main gradients between steps and whose all-reduce packs the gradients
            into one flat copy (Megatron-LM's fp16 optimizer with local DDP before contiguous buffers, 2021):
            :mod:`gpudesk.sizing.main_grads_kept`.
        unfused_gelu: training whose MLP activation is the tanh-approximate GELU computed op by op in eager PyTorch
            (transformers ``NewGELUActivation``, config ``gelu_new``): three more MLP-wide tensors saved a layer
            (:mod:`gpudesk.sizing.eager_gelu`).
        fused_norm: training in eager PyTorch whose RMSNorms run in a fused kernel (apex ``FusedRMSNorm``,
            Megatron-LM forks with ``--apply-layernorm-rms``) that saves no fp32 copies; the unfused SiLU-and-multiply
            still saves its output (:func:`gpudesk.sizing.memory_train.eager_extra_bytes_per_layer`).
        grouped_kv_attention: training of a grouped-query (GQA/MQA) model whose attention kernel takes the keys
            and values un-repeated (flash-attn ``flash_attn_func``: transformers ``flash_attention_2``,
            Megatron/Transformer Engine): they are saved at ``kv_heads x head_dim``, not at the query width
            (:func:`gpudesk.sizing.activations.activation_bytes_per_layer` ``kv_width``). Off: ``repeat_kv``
            before the kernel (torchtitan, torchtune, transformers ``sdpa``/eager) saves them repeated.
        eager_softmax: training without a fused attention kernel, how the eager softmax is written: ``16bit``
            (Korthikanti's count), ``fp32`` (transformers' ``softmax(..., dtype=torch.float32).to(dtype)``) or
            ``fp32-clamped`` (OPT's, after a ``torch.max`` clamp of the masked scores) (:mod:`gpudesk.sizing.eager_softmax`).
        encoder_lm_head: full training of an encoder (BERT, RoBERTa, DistilBERT) with its masked-language-model
            head over every position: the vocabulary logits (kept as ``loss`` says) and the head's transform are
            counted; refused for other models (:mod:`gpudesk.sizing.encoder_lm_head`).
        fsdp1_limit_all_gathers: training under ``sharding="fsdp"`` with ``fsdp_version=1``: False when FSDP's rate
            limiter is off (``limit_all_gathers=False``, PyTorch 2.0's default): the CPU issues the all-gathers ahead
            of the GPU and every unit is counted unsharded at once (:mod:`gpudesk.sizing.fsdp1_rate_limiter`).
        fsdp_root_only: full training under ``sharding="fsdp"`` with no auto-wrap policy: the whole model is one
            FSDP unit, unsharded from forward to the end of backward, its gradient twice before the reduce-scatter
            (:func:`gpudesk.sizing.memory_train.fsdp_gathered_bytes`).
        fused_qkv_load: inference with the q, k and v projections fused after loading (AutoAWQ
            ``fuse_layers=True``): the allocated peak may be the loading moment that holds them twice
            (:mod:`gpudesk.sizing.fused_load`).
        prefill_kv_kept: inference with a static cache whose fused attention also returns the prompt's keys and
            values, kept for every layer until the prefill returns (AutoAWQ fused modules before 8110e02 inside
            transformers' ``LlamaModel``; :mod:`gpudesk.sizing.prefill_kv_kept`).
        decode_attention: inference whose decode steps run attention on PyTorch's math SDPA backend in eager mode
            (gpt-fast / torchao ``generate.py``): ``math-16bit`` (PyTorch <= 2.4) or ``math-fp32`` (>= 2.5, inputs
            upcast) hold whole-context copies of one layer's K and V (:mod:`gpudesk.sizing.decode_attention`);
            ``fused``: a fused kernel reads the cache in place.
        load_dtype: inference whose 16-bit weights reach the GPU as fp32 and are cast there (``fp32``: transformers
            ``from_pretrained`` without ``torch_dtype``, then ``.cuda().half()``), so the peak may be the cast's
            first step (:mod:`gpudesk.sizing.load_cast`); ``weight-format``: loaded as they run.
        gptq_kernel, max_input_tokens: inference of 4-bit GPTQ weights through AutoGPTQ's ExLlama kernels
            (``exllama``, ``exllama-act-order``, ``exllamav2``; ``none``: kernels without a persistent scratch) and the
            longest input the act-order buffer is sized for (:mod:`gpudesk.sizing.gptq_scratch`).
        tp_replicated_vocab: inference under tensor parallelism that keeps the embedding and LM head whole on
            every GPU (lit-gpt ``generate/tp.py``), instead of splitting the vocabulary (vLLM, Megatron-LM).
        zero3_max_reuse_distance, zero3_max_live_parameters, zero3_prefetch_bucket, zero3_persistence_threshold,
            zero3_reduce_bucket: DeepSpeed ZeRO-3's ``stage3_max_reuse_distance``, ``stage3_max_live_parameters``,
            ``stage3_prefetch_bucket_size``, ``stage3_param_persistence_threshold`` and ``reduce_bucket_size`` in
            elements (None: Hugging Face's ``"auto"`` fill from the hidden size), full training or LoRA (the
            frozen base is gathered the same way) under ``sharding="zero3"`` (:mod:`gpudesk.sizing.zero3_params`).
        zero3_defaults: where the three ZeRO-3 sizes not given come from: ``hf-auto`` (the config says ``"auto"``,
            filled from the hidden size) or ``deepspeed`` (the config leaves them out: DeepSpeed's own reduce bucket
            5e8, prefetch bucket 5e7 and persistence threshold 1e5; :data:`gpudesk.sizing.zero3_params.ZERO3_DEFAULTS`).
        zero3_outside_init: full training or LoRA under ``sharding="zero3"`` of a model built outside
            ``deepspeed.zero.Init`` (``from_pretrained`` before ``TrainingArguments``): the engine first moves the whole
            model to every GPU, and ``F.linear`` is not replaced, so autograd keeps every gathered Linear weight from
            its forward to its backward (:mod:`gpudesk.sizing.zero3_outside_init`).
        recompute_layers: with ``recompute="full"`` in full training, the layers of each pipeline stage (of the
            model without pipeline parallelism) that are checkpointed; the others keep every activation (None: all;
            Megatron-LM ``--recompute-method block --recompute-num-layers``; :mod:`gpudesk.sizing.recompute_layers`).
        expert_parallel: full training or LoRA (16/32-bit base) of an MoE model, the GPUs of each pipeline stage its routed experts are spread
            over, each holding ``experts / expert_parallel`` whole experts (Megatron-Core
            ``--expert-model-parallel-size``; :mod:`gpudesk.sizing.train_expert_parallel`).
        expert_tensor_parallel: full training and LoRA with ``expert_parallel``: the GPUs each routed expert's matrices split
            over (Megatron-LM ``--expert-tensor-parallel-size``); None: ``tensor_parallel``, Megatron-LM's default.
        zero2_reduce_bucket: DeepSpeed ZeRO-2's ``reduce_bucket_size`` in elements, full training under
            ``sharding="zero2"`` (None: DeepSpeed's own 5e8; Hugging Face's ``"auto"`` fills hidden_size squared,
            Lightning's ``deepspeed_stage_2`` 2e8; :mod:`gpudesk.sizing.zero2_buffers`).
        bnb_fp32_compute: inference of bitsandbytes 4-bit weights whose layers compute in fp32
            (``BitsAndBytesConfig`` without ``bnb_4bit_compute_dtype``; :mod:`gpudesk.sizing.bnb_compute`).
        embeddings_on_host: inference that keeps the input embedding table in host memory (ExLlama's device map).
        prompt_tokens: inference prompt tokens per sequence, the prefill's length (None: the whole
            ``context_tokens``).
        mla_decode_weights: inference of an MLA model (DeepSeek-V2/V3): the 16-bit decode matrices the engine
            builds after loading: ``up-proj`` (vLLM since 2025-03: a 16-bit copy of a quantised ``kv_b_proj``),
            ``absorbed`` (vLLM 0.7.1-0.7.3: absorbed ``W_Q_UK`` and ``W_UV_O``) or ``none``.
        optimizer_impl: ``foreach`` (PyTorch >= 2.0 default on CUDA), ``fused`` or ``for-loop`` (PyTorch 1.x, HF
            ``adamw_hf``): whether ``optimizer.step()`` builds a state-sized temporary for every parameter.
        kbit_fp32_upcast: LoRA/QLoRA after PEFT ``prepare_model_for_kbit_training`` (norms, embeddings and LM head
            in fp32; an fp32 residual stream).
        kbit_embeddings_bf16: TRL's ``SFTTrainer`` under bf16 runs ``peft_module_casting_to_bf16``: the norms
            in fp32, the embeddings and LM head in bf16 (cast back after ``kbit_fp32_upcast``, or as loaded).
        fsdp1_mixed_flat_params: LoRA/QLoRA under FSDP1 with the adapters in the same FlatParameter as the frozen
            base (a per-block wrap without PEFT's ``fsdp_auto_wrap_policy``).
        lora_dropout: the adapters' dropout (PEFT ``LoraConfig`` default 0): above 0 each adapter keeps its own copy
            of its input.
        legacy_bnb_matmul: QLoRA with bitsandbytes < 0.43.2 (every 4-bit Linear keeps its input).
        nonreentrant_checkpoint: LoRA/QLoRA with ``recompute="full"`` run by non-reentrant checkpointing
            (``use_reentrant=False``): a bitsandbytes base keeps every layer's Linear inputs on the autograd context
            from forward to backward (:mod:`gpudesk.sizing.ctx_kept_inputs`); False: reentrant (transformers'
            default), which keeps none.
        lora_kernels: ``peft`` (one autograd node per Linear and adapter) or ``fused`` (Unsloth's fused LoRA
            blocks, which keep the MLP's input, gate and up outputs only; :mod:`gpudesk.sizing.activations_lora`).
        eval_batch: LoRA/QLoRA under Hugging Face ``Trainer`` with an evaluation strategy: the per-device eval batch
            of the evaluation passes inside the measured run (0: none; :mod:`gpudesk.sizing.train_eval_pass`).
        eval_kv_cache: with ``eval_batch``: the model builds its KV cache in the eval forward (``config.use_cache``,
            True by default); False when the run turns it off.
        eval_loss: with ``eval_batch``: the loss mode of the eval forward when it differs from ``loss`` ("": the
            same). Unsloth's ``unsloth_prediction_step`` sets ``UNSLOTH_RETURN_LOGITS=1`` for evaluation, so its eval
            forward writes 16-bit logits (``inplace-16bit``) while training runs its fused loss
            (:mod:`gpudesk.sizing.train_eval_pass`).
        weight_loading: how the weights reach the GPU (``per-tensor``, ``nf4-nearest-search`` for torchao's
            unchunked ``to_nf4`` before May 2024, ``fsdp1-sync-states`` for FSDP1 ``sync_module_states`` from rank
            0's CPU copy): the blocks cached while loading set the reserved peak when they exceed training's
            (:mod:`gpudesk.sizing.loading`).
        pipeline_parallel: pipeline stages (training); for inference, GPUs that hold whole decoder layers and run
            in turn (Hugging Face ``device_map="auto"``, vLLM ``--pipeline-parallel-size``;
            :mod:`gpudesk.sizing.layer_split`); ``pipeline_schedule`` ``1f1b``, ``interleaved-1f1b`` or
            ``gpipe``; ``pipeline_microbatches`` the micro-batches the batch is split into (None: the stage count,
            torchtitan's default); ``pipeline_stages_per_rank`` model chunks per rank (interleaved; None: 2).
        global_batch_size: training sequences per optimizer step over the whole job, Megatron style (None: not
            given). With it ``micro_batch_size`` is the sequences of one forward/backward pass, and each rank runs
            ``global / (micro x data-parallel)`` of them a step: pipeline micro-batches under pipeline
            parallelism, gradient-accumulation steps without (:func:`gpudesk.sizing.pipeline.step_batching`).
        double_quant: QLoRA base with bitsandbytes double quantisation (``bnb_4bit_use_double_quant``, 4.127
            bit/param; off: 4.5 bit/param).
        base_weights: LoRA's frozen base at ``precision`` (default) or ``int8`` (bitsandbytes LLM.int8,
            ``load_in_8bit``; :mod:`gpudesk.sizing.lora_base`).
        modules_to_save: LoRA/QLoRA with PEFT ``modules_to_save``: ``embed_tokens`` and/or ``lm_head`` trained as
            full copies beside the frozen originals.
        no_kv_cache: inference that generates without a KV cache (transformers ``generate(use_cache=False)``): each
            new token re-runs the whole sequence, so the peak is one forward pass over the context and no cache
            is kept (:mod:`gpudesk.sizing.memory_inference`).
        sp_gathered_inputs: with ``sequence_parallel``, the column-parallel linears save their all-gathered input
            (PyTorch DTensor sequence parallelism, torchtitan) rather than the shard Megatron-LM re-gathers in
            backward (training; :data:`gpudesk.sizing.activations.SP_GATHERED_INPUTS_PER_LAYER`).
    """

    mode: str = "train"
    precision: str = "bf16"
    optimizer: str = "adam-18"
    seq_len_tokens: int = 2048
    micro_batch_size: int = 1
    gpus: int = 1
    sharding: str = "ddp"
    offload: str = "none"
    recompute: str = "none"
    flash_attention: bool = True
    tensor_parallel: int = 1
    sequence_parallel: bool = False
    lora_rank: int = 16
    lora_targets: tuple[str, ...] = ("all-linear",)
    weight_format: str = CHECKPOINT_WEIGHT_FORMAT
    kv_precision: str = "bf16"
    context_tokens: int = 4096
    concurrent_sequences: int = 1
    paged_block_tokens: int | None = 16
    activation_bytes_per_sample: int | None = None
    overheads: Overheads = field(default_factory=Overheads)
    loss: str = "standard"
    loss_vocab_chunk: int | None = None
    optimizer_in_backward: bool = False
    activation_offload: bool = False
    context_parallel: int = 1
    compiled: bool = False
    gradient_accumulation: bool = False
    fsdp_version: int = 2
    zero_grad_keeps_grads: bool = False
    cuda_lazy_loading: bool = True
    cuda_major_version: int = 12
    driver_reserved_mib: int = 0
    kv_cache_impl: str = "paged"
    mla_decode_weights: str = "up-proj"
    optimizer_impl: str = "foreach"
    kbit_fp32_upcast: bool = False
    kbit_embeddings_bf16: bool = False
    fsdp1_mixed_flat_params: bool = False
    lora_dropout: float = 0.0
    legacy_bnb_matmul: bool = False
    nonreentrant_checkpoint: bool = False
    lora_kernels: str = "peft"
    weight_loading: str = "per-tensor"
    double_quant: bool = True
    pipeline_parallel: int = 1
    pipeline_schedule: str = "1f1b"
    pipeline_microbatches: int | None = None
    pipeline_stages_per_rank: int | None = None
    global_batch_size: int | None = None
    sp_gathered_inputs: bool = False
    longest_sample_tokens: int | None = None
    prompt_logits: str = "last"
    prompt_tokens: int | None = None
    fsdp1_no_sync: bool = True
    fsdp2_no_sync: str = "off"
    tp_whole_logits: bool = False
    decoder_seq_len_tokens: int | None = None
    tp_replicated_embedding: bool = False
    ddp_bucket_view: bool = False
    fp32_grad_buffer: bool = False
    main_grads_kept: bool = False
    unfused_gelu: bool = False
    fused_norm: bool = False
    grouped_kv_attention: bool = False
    eager_softmax: str = "16bit"
    encoder_lm_head: bool = False
    fsdp_root_only: bool = False
    fsdp1_limit_all_gathers: bool = True
    fused_qkv_load: bool = False
    prefill_kv_kept: bool = False
    gptq_kernel: str = "none"
    max_input_tokens: int = 2048
    decode_attention: str = "fused"
    load_dtype: str = "weight-format"
    tp_replicated_vocab: bool = False
    embeddings_on_host: bool = False
    base_weights: str = "precision"
    modules_to_save: tuple[str, ...] = ()
    no_kv_cache: bool = False
    bnb_fp32_compute: bool = False
    zero3_max_reuse_distance: int = DEFAULT_MAX_REUSE_DISTANCE
    zero3_max_live_parameters: int = DEFAULT_MAX_LIVE_PARAMETERS
    zero3_prefetch_bucket: int | None = None
    zero3_persistence_threshold: int | None = None
    zero3_reduce_bucket: int | None = None
    zero3_defaults: str = "hf-auto"
    zero3_outside_init: bool = False
    zero2_reduce_bucket: int | None = None
    recompute_layers: int | None = None
    expert_parallel: int = 1
    expert_tensor_parallel: int | None = None
    eval_batch: int = 0
    eval_kv_cache: bool = True
    eval_loss: str = ""


def peak_batch_tokens(seq_len_tokens: int, longest_sample_tokens: int | None) -> int:
    """Tokens a row of the batch that sets the training peak holds.

    Collators that pad a batch to its longest sample make every row as long as that sample: torchtune
    ``padded_collate`` (``torch.nn.utils.rnn.pad_sequence``, "Pad a batch of sequences to the longest sequence
    length in the batch", https://github.com/pytorch/torchtune/blob/0217d44c2e1e372b34628767745c1f6538086a81/torchtune/utils/collate.py)
    and transformers ``DataCollatorWithPadding`` / ``DataCollatorForSeq2Seq`` with ``padding=True`` ("pad to the
    longest sequence in the batch", https://github.com/huggingface/transformers/blob/main/src/transformers/data/data_collator.py).
    Samples are first truncated at the cap (torchtune ``max_seq_len``: ``alpaca_dataset(max_seq_len=512)`` at that
    commit, ``torchtune/datasets/_alpaca.py``). Activations and logits grow with the tokens of the batch, so the
    peak of a run is the batch that holds the longest (truncated) sample: ``min(cap, longest sample)`` tokens a
    row, every row of the batch padded to it. Unset, batches are taken to reach the cap (packing or
    ``padding="max_length"``).

    Raises:
        SizingError: a length that is not a positive whole number of tokens.
    """
    cap = positive_int("seq_len_tokens", seq_len_tokens, MAX_SEQ_LEN_TOKENS)
    if longest_sample_tokens is None:
        return cap
    return min(cap, positive_int("longest_sample_tokens", longest_sample_tokens, MAX_SEQ_LEN_TOKENS))


def data_parallel_of(w: MemoryWorkload) -> int:
    """Data-parallel replicas of ``w``: its GPUs over tensor x pipeline x context parallelism (at least 1)."""
    model_parallel = max(1, w.tensor_parallel) * max(1, w.pipeline_parallel) * max(1, w.context_parallel)
    return max(1, w.gpus // model_parallel)


def with_step_batching(w: MemoryWorkload) -> MemoryWorkload:
    """``w`` with its Megatron-style ``global_batch_size`` turned into the inputs the formulas take
    (:func:`gpudesk.sizing.pipeline.step_batching`): under pipeline parallelism the rank's step batch
    (``micro_batch_size`` x micro-batches) split into that many pipeline micro-batches, so each micro-batch
    carries ``micro_batch_size`` sequences; without it, gradient accumulation when a step has several
    micro-batches.

    Raises:
        SizingError: a global batch that does not split, or one that contradicts ``pipeline_microbatches``.
    """
    pp = max(1, w.pipeline_parallel)
    batching = step_batching(w.global_batch_size or 0, w.micro_batch_size, data_parallel_of(w))
    if pp == 1:
        return replace(w, global_batch_size=None,
                       gradient_accumulation=w.gradient_accumulation or batching.microbatches > 1)
    if w.pipeline_microbatches is not None and w.pipeline_microbatches != batching.microbatches:
        raise SizingError("pipeline_microbatches", _(
            "{given} pipeline micro-batches contradict the global batch, which makes {m} per step.").format(
                given=w.pipeline_microbatches, m=batching.microbatches))
    return replace(w, global_batch_size=None, micro_batch_size=batching.local_batch,
                   pipeline_microbatches=batching.microbatches)


def estimate_memory(spec: ModelSpec, workload: MemoryWorkload) -> MemoryEstimate:
    """Per-GPU memory for ``workload`` on ``spec`` (bytes, with a named breakdown and assumptions).

    Raises:
        SizingError / ShapeError: an invalid or inconsistent input; ``.field`` names it.
    """
    mode = choice("mode", workload.mode, MODES)
    check_mode_settings(workload)
    if check_driver_reserved_mib(workload.driver_reserved_mib):
        # The driver's reserve is outside the process: added to the device figure of whatever the job holds.
        return with_driver_reserved(estimate_memory(spec, replace(workload, driver_reserved_mib=0)),
                                    workload.driver_reserved_mib)
    w = workload
    if w.pipeline_parallel <= 1:
        # Without pipeline stages these settings have nothing to act on; dropping them unseen would hide a typo.
        for name, given in (("pipeline_microbatches", w.pipeline_microbatches is not None),
                            ("pipeline_stages_per_rank", w.pipeline_stages_per_rank is not None),
                            ("pipeline_schedule", w.pipeline_schedule != "1f1b")):
            if given:
                raise SizingError(name, _("this setting applies to pipeline parallelism; set more than one "
                                          "pipeline stage, or leave it out."))
    if w.loss_vocab_chunk is not None and w.loss != "vocab-chunked":
        # Dropping it unseen would hide a typo.
        raise SizingError("loss_vocab_chunk", _("the vocabulary chunk applies to the vocab-chunked loss; set that "
                                                "loss, or leave it out."))
    if w.global_batch_size is not None:
        if mode == "inference":
            raise SizingError("global_batch_size", _("a global batch applies to training; inference has none."))
        resolved = with_step_batching(w)
        microbatches = resolved.pipeline_microbatches if w.pipeline_parallel > 1 else (
            w.global_batch_size // (w.micro_batch_size * data_parallel_of(w)))
        batching_note = (
            _("global batch {global_batch} = micro-batch {micro} x {microbatches} per step x {gpus}").format(
                global_batch=w.global_batch_size, micro=w.micro_batch_size,
                microbatches=ngettext("{m} micro-batch", "{m} micro-batches", microbatches or 0).format(m=microbatches),
                gpus=ngettext("{dp} data-parallel GPU", "{dp} data-parallel GPUs", data_parallel_of(w)).format(
                    dp=data_parallel_of(w))),
            "Megatron-Core num_microbatches_calculator.py")
        return _with_note(estimate_memory(spec, resolved), batching_note)
    if isinstance(w.cuda_major_version, bool) or w.cuda_major_version not in CUDA_MAJOR_VERSIONS:
        raise SizingError("cuda_major_version", _("{value!r} is not one of: {options}.").format(
            value=w.cuda_major_version, options=", ".join(str(v) for v in CUDA_MAJOR_VERSIONS)))
    if w.cuda_lazy_loading and w.cuda_major_version < 11:
        # CUDA_MODULE_LOADING=LAZY arrived with CUDA 11.7 (CUDA C Programming Guide, "Lazy Loading").
        raise SizingError("cuda_major_version", _("lazy module loading needs CUDA 11.7 or later; a build on CUDA "
                                                  "10 loads every kernel at start-up: turn lazy loading off."))
    if not w.cuda_lazy_loading and w.overheads.cuda_context_bytes < eager_context_bytes(w.cuda_major_version):
        w = replace(w, overheads=replace(w.overheads, cuda_context_bytes=eager_context_bytes(w.cuda_major_version)))
    if w.sharding in DEEPSPEED_STAGES and w.precision in ("fp16-amp", "bf16-amp"):
        # DeepSpeed's fp16/bf16 engine casts the module itself to 16 bits (fp32 master copies live in the
        # optimizer): https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/engine.py
        # ``_configure_distributed_model`` (``self.module.half()`` / ``bfloat16()``).
        w = replace(w, precision=w.precision.split("-", 1)[0])
    if mode == "train" and w.sharding in DEEPSPEED_STAGES and w.precision == "bf16-pure":
        return _with_note(_estimate_training(spec, mode, replace(w, precision="bf16")), deepspeed_master_note())
    if mode != "inference" and w.longest_sample_tokens is not None:
        peak_tokens = peak_batch_tokens(w.seq_len_tokens, w.longest_sample_tokens)
        if peak_tokens < w.seq_len_tokens:
            w = replace(w, seq_len_tokens=peak_tokens)
            padding = (_("batches are padded to their longest sample: the peak batch is {tokens} tokens a row (the "
                         "longest sample, under the cap of {cap})").format(tokens=peak_tokens, cap=workload.seq_len_tokens),
                       "torchtune padded_collate; transformers DataCollatorWithPadding (padding=True)")
            return _with_note(estimate_memory(spec, replace(w, longest_sample_tokens=None)), padding)
    if mode != "inference":
        return _estimate_training(spec, mode, w)
    for name, given in (("pipeline_microbatches", w.pipeline_microbatches is not None),
                        ("pipeline_stages_per_rank", w.pipeline_stages_per_rank is not None),
                        ("pipeline_schedule", w.pipeline_schedule != "1f1b")):
        if given:
            raise SizingError(name, _("inference runs each request through the pipeline stages in turn (no "
                                      "micro-batch schedule); give the stages with the pipeline setting only."))
    return inference_memory(
        spec, weight_format=w.weight_format, kv_precision=w.kv_precision, context_tokens=w.context_tokens,
        concurrent_sequences=w.concurrent_sequences, paged_block_tokens=w.paged_block_tokens,
        flash_attention=w.flash_attention, tensor_parallel=w.tensor_parallel,
        activation_bytes_per_sample=w.activation_bytes_per_sample, overheads=w.overheads,
        kv_cache_impl=w.kv_cache_impl, mla_decode_weights=w.mla_decode_weights, prompt_logits=w.prompt_logits,
        prefill_tokens=w.prompt_tokens, fused_qkv_load=w.fused_qkv_load,
        tp_replicated_vocab=w.tp_replicated_vocab, embeddings_on_host=w.embeddings_on_host,
        no_kv_cache=w.no_kv_cache,
        pipeline_parallel=w.pipeline_parallel, bnb_fp32_compute=w.bnb_fp32_compute,
        prefill_kv_kept=w.prefill_kv_kept, gptq_kernel=w.gptq_kernel, max_input_tokens=w.max_input_tokens,
        decode_attention=w.decode_attention, load_dtype=w.load_dtype,
    )


def deepspeed_master_note() -> tuple[str, str]:
    """Why a DeepSpeed ZeRO stage keeps fp32 master weights and optimizer states for a bf16 model.

    DeepSpeed's ZeRO optimizers copy the 16-bit parameter partition into an fp32 master partition and run the
    optimizer over it, whatever dtype the module was loaded in: stage 3
    ``DeepSpeedZeroOptimizer_Stage3._create_fp32_partitions`` (``fp16_partitioned_groups_flat[i]...clone().float()``),
    stages 1-2 ``DeepSpeedZeroOptimizer.__init__`` (``single_partition_of_fp32_groups``), in
    https://github.com/deepspeedai/DeepSpeed/blob/v0.16.0/deepspeed/runtime/zero/stage3.py and
    ``stage_1_and_2.py``. Later releases name the dtype ``master_weights_and_grads_dtype``; a 16-bit master
    (``bf16_master_weights_and_grads``) is accepted only with the optimizer offloaded to the CPU
    (``_enforce_optimizer_offload``), where the master is off the GPU anyway. So ``bf16-pure`` under a ZeRO
    stage on the GPU is sized as bf16 compute over an fp32 master with fp32 Adam states.
    """
    return (_("DeepSpeed ZeRO keeps fp32 master weights and fp32 optimizer states even for a bf16 model: sized as bf16 "
              "over an fp32 master"),
            "deepspeed/runtime/zero/stage3.py _create_fp32_partitions; stage_1_and_2.py single_partition_of_fp32_groups")


def _with_note(est: MemoryEstimate, note: tuple[str, str]) -> MemoryEstimate:
    return replace(est, assumptions=(note,) + est.assumptions)


ZERO3_SETTINGS = ("zero3_max_reuse_distance", "zero3_max_live_parameters", "zero3_prefetch_bucket",
                  "zero3_persistence_threshold", "zero3_reduce_bucket")


def zero3_settings(w: MemoryWorkload) -> Zero3Settings:
    """The DeepSpeed ZeRO-3 settings of ``w``, checked; refused away from their defaults unless ``w`` is full
    training or LoRA under DeepSpeed ZeRO-3 (PyTorch FSDP has none of them).

    Raises:
        SizingError: a setting that is not a positive whole number, or one given where nothing reads it.
    """
    defaults = MemoryWorkload()
    for name in ZERO3_SETTINGS:
        value = getattr(w, name)
        if value is not None and not (type(value) is int and 0 <= value <= 10**13):
            raise SizingError(name, _("must be a whole number of elements from 0 to 1e13, got {value}.").format(
                value=value))
        if value != getattr(defaults, name) and not (w.mode in ("train", "lora") and w.sharding == "zero3"):
            raise SizingError(name, _(
                "this DeepSpeed ZeRO-3 setting applies to full training or LoRA with sharding zero3; leave it out."))
    unset = choice("zero3_defaults", w.zero3_defaults, ZERO3_DEFAULTS)
    if unset != defaults.zero3_defaults and not (w.mode in ("train", "lora") and w.sharding == "zero3"):
        raise SizingError("zero3_defaults", _(
            "this DeepSpeed ZeRO-3 setting applies to full training or LoRA with sharding zero3; leave it out."))
    check_zero3_outside_init(w.zero3_outside_init, w.mode, w.sharding)
    sizes = (w.zero3_prefetch_bucket, w.zero3_persistence_threshold, w.zero3_reduce_bucket)
    if unset != defaults.zero3_defaults and all(size is not None for size in sizes):
        # it fills only the sizes left out (Zero3Settings.resolved): with all three given it would be dropped unseen
        raise SizingError("zero3_defaults", _(
            "says where the ZeRO-3 sizes left out come from, and all three are given; leave it out."))
    return Zero3Settings(max_reuse_distance=w.zero3_max_reuse_distance,
                         max_live_parameters=w.zero3_max_live_parameters,
                         prefetch_bucket_size=w.zero3_prefetch_bucket,
                         param_persistence_threshold=w.zero3_persistence_threshold,
                         reduce_bucket_size=w.zero3_reduce_bucket, unset=unset,
                         outside_init=w.zero3_outside_init)


def zero2_reduce_bucket(w: MemoryWorkload) -> int | None:
    """DeepSpeed ZeRO-2's reduce bucket of ``w`` in elements (None: DeepSpeed's default), checked; refused unless
    ``w`` is full training under DeepSpeed ZeRO-2 (:mod:`gpudesk.sizing.zero2_buffers`; LoRA's and ZeRO-1's
    bucket is not modelled, ZeRO-3 has ``zero3_reduce_bucket``).

    Raises:
        SizingError: a value that is not a whole number of elements, or one given where nothing reads it.
    """
    value = w.zero2_reduce_bucket
    if value is None:
        return None
    if not (type(value) is int and 0 <= value <= 10**13):
        raise SizingError("zero2_reduce_bucket", _(
            "must be a whole number of elements from 0 to 1e13, got {value}.").format(value=value))
    if not (w.mode == "train" and w.sharding == "zero2"):
        raise SizingError("zero2_reduce_bucket", _(
            "this DeepSpeed ZeRO-2 setting applies to full training with sharding zero2; leave it out."))
    return value


def _vocab_chunk(w: MemoryWorkload) -> int:
    """The vocabulary columns of one chunk: the given ones, or the default where none was set."""
    return DEFAULT_VOCAB_CHUNK_COLUMNS if w.loss_vocab_chunk is None else w.loss_vocab_chunk


def _estimate_training(spec: ModelSpec, mode: str, w: MemoryWorkload) -> MemoryEstimate:
    est = _estimate_training_modes(spec, mode, w)
    if w.encoder_lm_head and spec.vocab_size and w.activation_bytes_per_sample is None:
        est = replace(est, assumptions=est.assumptions + (encoder_lm_head_note(spec.hidden_size or 0,
                                                                                spec.vocab_size),))
    if not w.fused_norm:
        return est
    note = fused_norm_note(spec, w.seq_len_tokens, w.micro_batch_size, tensor_parallel=w.tensor_parallel,
                           sequence_parallel=w.sequence_parallel, recompute=w.recompute, compiled=w.compiled,
                           activation_bytes_given=w.activation_bytes_per_sample is not None)
    return replace(est, assumptions=est.assumptions + (note,))


def _estimate_training_modes(spec: ModelSpec, mode: str, w: MemoryWorkload) -> MemoryEstimate:
    zero3 = zero3_settings(w)
    if mode == "train":
        return train_memory(
            spec, precision=w.precision, optimizer=w.optimizer, seq_len_tokens=w.seq_len_tokens,
            micro_batch_size=w.micro_batch_size, gpus=w.gpus, sharding=w.sharding, offload=w.offload,
            recompute=w.recompute, flash_attention=w.flash_attention, tensor_parallel=w.tensor_parallel,
            sequence_parallel=w.sequence_parallel, activation_bytes_per_sample=w.activation_bytes_per_sample,
            overheads=w.overheads, loss=w.loss, optimizer_in_backward=w.optimizer_in_backward,
            activation_offload=w.activation_offload, context_parallel=w.context_parallel, compiled=w.compiled,
            gradient_accumulation=w.gradient_accumulation, fsdp_version=w.fsdp_version,
            zero_grad_keeps_grads=w.zero_grad_keeps_grads, optimizer_impl=w.optimizer_impl,
            weight_loading=w.weight_loading, pipeline_parallel=w.pipeline_parallel,
            pipeline_schedule=w.pipeline_schedule, pipeline_microbatches=w.pipeline_microbatches,
            pipeline_stages_per_rank=w.pipeline_stages_per_rank, sp_gathered_inputs=w.sp_gathered_inputs,
            fsdp1_no_sync=w.fsdp1_no_sync, fsdp2_no_sync=w.fsdp2_no_sync, tp_whole_logits=w.tp_whole_logits,
            tp_replicated_embedding=w.tp_replicated_embedding, decoder_seq_len_tokens=w.decoder_seq_len_tokens,
            ddp_bucket_view=w.ddp_bucket_view, zero3=zero3, zero2_reduce_bucket=zero2_reduce_bucket(w),
            fp32_grad_buffer=w.fp32_grad_buffer, main_grads_kept=w.main_grads_kept,
            unfused_gelu=w.unfused_gelu, fused_norm=w.fused_norm, eager_softmax=w.eager_softmax,
            grouped_kv_attention=w.grouped_kv_attention,
            fsdp_root_only=w.fsdp_root_only, fsdp1_limit_all_gathers=w.fsdp1_limit_all_gathers,
            loss_vocab_chunk=_vocab_chunk(w), encoder_lm_head=w.encoder_lm_head,
            recompute_layers=w.recompute_layers, expert_parallel=w.expert_parallel,
            expert_tensor_parallel=w.expert_tensor_parallel,
        )
    if w.pipeline_parallel != 1:
        raise SizingError("pipeline_parallel", _("pipeline parallelism is modelled for full training only."))
    check_recompute_layers(w.recompute_layers, mode=mode, recompute=w.recompute)
    return lora_memory(
        spec, mode=mode, rank=w.lora_rank, targets=w.lora_targets, precision=w.precision,
        optimizer=w.optimizer,
        seq_len_tokens=w.seq_len_tokens, micro_batch_size=w.micro_batch_size, recompute=w.recompute,
        flash_attention=w.flash_attention, overheads=w.overheads, gpus=w.gpus, sharding=w.sharding,
        offload=w.offload, loss=w.loss, activation_offload=w.activation_offload, compiled=w.compiled,
        unfused_gelu=w.unfused_gelu, fused_norm=w.fused_norm, eager_softmax=w.eager_softmax,
        grouped_kv_attention=w.grouped_kv_attention,
        kbit_fp32_upcast=w.kbit_fp32_upcast, kbit_embeddings_bf16=w.kbit_embeddings_bf16,
        fsdp1_mixed_flat_params=w.fsdp1_mixed_flat_params and w.fsdp_version == 1,
        lora_dropout=w.lora_dropout, legacy_bnb_matmul=w.legacy_bnb_matmul, weight_loading=w.weight_loading,
        nonreentrant_checkpoint=w.nonreentrant_checkpoint,
        double_quant=w.double_quant, fsdp_version=w.fsdp_version, lora_kernels=w.lora_kernels,
        tensor_parallel=w.tensor_parallel, sequence_parallel=w.sequence_parallel,
        base_weights=w.base_weights, modules_to_save=tuple(w.modules_to_save), loss_vocab_chunk=_vocab_chunk(w),
        zero3=zero3, fsdp1_limit_all_gathers=w.fsdp1_limit_all_gathers, context_parallel=w.context_parallel,
        expert_parallel=w.expert_parallel, expert_tensor_parallel=w.expert_tensor_parallel,
        eval_batch=w.eval_batch, eval_kv_cache=w.eval_kv_cache, eval_loss=w.eval_loss,
    )
