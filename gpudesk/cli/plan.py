"""``gpudesk plan`` and ``gpudesk estimate memory``: the planner and the memory estimator from the command line.

``gpudesk plan --profile FILE.toml [--format md|json|csv] [--candidate N] [--output FILE] [--no-my-prices]``
plans a TOML profile (see resources/examples) against the bundled catalog: ``json`` prints the plan document (docs/plan-document.md)
(keys with units), ``md`` the configuration sheet of the chosen candidate, ``csv`` its bill of materials.
Your own GPU prices (Catalog tab, user store) are used when the user store opens, unless ``--no-my-prices``.

``gpudesk estimate memory --model NAME | --params N | --config config.json --mode train|lora|qlora|inference``
prints the per-GPU memory breakdown in GiB and bytes (``--json`` for a JSON object); ``--gpu NAME`` adds the
fit against that card's usable memory and safe line.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from gpudesk.cli import CliError
from gpudesk.cli.plan_flags import FLAG_KEYS, add_requirement_flags, flags_given, profile_from_args
from gpudesk.cli.columns import display_width, ljust_display
from gpudesk.cli.serve_fit import add_serve_parser, engines_accuracy, engines_accuracy_lines
from gpudesk.cli.speed import add_speed_parser
from gpudesk.cli.json_text import dumps_json
from gpudesk.i18n import _
from gpudesk.sizing.activations import DEFAULT_VOCAB_CHUNK_COLUMNS, LOSS_MODES
from gpudesk.sizing.activations_lora import LORA_KERNELS
from gpudesk.sizing.decode_attention import DECODE_ATTENTIONS
from gpudesk.sizing.eager_softmax import EAGER_SOFTMAX
from gpudesk.sizing.fsdp2_no_sync import FSDP2_NO_SYNC
from gpudesk.sizing.load_cast import LOAD_DTYPES
from gpudesk.sizing.error_band import FRAMEWORKS
from gpudesk.sizing.loading import WEIGHT_LOADERS
from gpudesk.sizing.lora_base import LORA_BASE_WEIGHTS
from gpudesk.sizing.optimizers import OPTIMIZER_NAMES, PARAM_PRECISIONS
from gpudesk.sizing.overheads import CUDA_MAJOR_VERSIONS
from gpudesk.sizing.zero3_params import ZERO3_DEFAULTS

from gpudesk.units import GIB, MIB


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("plan", help=_("plan GPUs for a requirement profile (TOML)"))
    p.add_argument("--profile", metavar="FILE.toml", help=_("requirement profile, e.g. resources/examples/article-13b-finetune.toml"))
    p.add_argument("--format", choices=("md", "json", "csv", "pdf"), default="md",
                   help=_("md: configuration sheet; json: the whole plan; csv: bill of materials; pdf: the sheet laid "
                          "out for print (needs --output)"))
    p.add_argument("--candidate", type=int, default=1, metavar="N", help=_("which ranked candidate the sheet describes (1 = top)"))
    p.add_argument("--output", "--out", metavar="FILE", help=_("write to FILE instead of standard output"))
    p.add_argument("--no-my-prices", action="store_true",
                   help=_("ignore your own GPU prices (entered in the Catalog tab) and use the catalog's only"))
    add_requirement_flags(p)
    p.set_defaults(func=cmd_plan)

    e = subparsers.add_parser("estimate", help=_("estimate memory, speed or engine start-up for a model and workload"))
    esub = e.add_subparsers(dest="estimate_command", metavar="WHAT", required=True)
    m = esub.add_parser("memory", help=_("per-GPU memory breakdown (weights, gradients, optimizer, activations, KV ...)"))
    src = m.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="NAME", help=_("catalog model id or name fragment, e.g. llama-3-8b"))
    src.add_argument("--params", metavar="N", help=_("parameter count, e.g. 13B, 350M, 6.7e9 (shape is guessed)"))
    src.add_argument("--config", metavar="config.json", help=_("local Hugging Face config.json (read offline)"))
    m.add_argument("--mode", choices=("train", "lora", "qlora", "inference"), default="train")
    m.add_argument("--precision", default="bf16", choices=PARAM_PRECISIONS,
                   help=_("bf16/fp16/fp8: 16-bit compute over an fp32 master (also a model loaded in bf16 under FSDP "
                        "with Accelerate's bf16 mixed precision, e.g. HF Trainer --bf16: Accelerate 0.30 and later "
                        "upcast the shards to fp32); bf16-pure: all-bf16 (torchtune; HF Trainer without --bf16); "
                        "fp16-amp: torch.autocast over fp32 params (HF Trainer fp16=True); fp32"))
    m.add_argument("--optimizer", default="adam-18", type=str.lower, choices=OPTIMIZER_NAMES, metavar="NAME",
                   help=_("adamw, adamw_torch, adamw_8bit, paged_adamw_8bit, adafactor, sgd (with momentum: one state), sgd_plain "
                        "(momentum 0: no state), muon (one state for hidden matrices, AdamW for embeddings, head and "
                        "norms), or an accounting "
                        "(adam-16 ZeRO paper, adam-18 Megatron/DeepSpeed, adam-20 MT-NLG)"))
    m.add_argument("--seq", type=_tokens, default=2048, metavar="TOKENS", help=_("sequence length (training) or context (inference), e.g. 4096 or 8k"))
    m.add_argument("--batch", type=int, default=1, metavar="N", help=_("micro-batch (training) or concurrent sequences (inference)"))
    m.add_argument("--longest-sample-tokens", type=_tokens, default=None, metavar="TOKENS",
                   help=_("training with batches padded to their longest sample (no packing): the longest tokenised sample "
                        "the run meets (over a full epoch, the dataset's longest); the peak batch is the shorter of it "
                        "and --seq (the truncation cap)"))
    m.add_argument("--decoder-seq", type=_tokens, default=None, metavar="TOKENS", dest="decoder_seq_len_tokens",
                   help=_("full training of an encoder-decoder (T5, BART) whose targets are padded to their own "
                          "length: the decoder's tokens (its layers, cross-attention and logits at this length; "
                          "default: --seq)"))
    m.add_argument("--gpus", type=int, default=None, metavar="N", help=_("GPUs the job is spread over (default: --tp x --pp x --cp, else 1)"))
    m.add_argument("--sharding", default="ddp", choices=("ddp", "zero1", "zero2", "zero3", "fsdp", "fsdp-grad-op"),
                   help=_("zero1/zero2/zero3 are DeepSpeed ZeRO stages (fp32 master weights and optimizer states "
                          "whatever the model's dtype); fsdp/fsdp-grad-op are PyTorch FSDP"))
    m.add_argument("--offload", default="none", choices=("none", "optimizer", "all"))
    m.add_argument("--recompute", default=None, choices=("none", "selective", "full"),
                   help=_("activation recompute (default: full for qlora, as PEFT prepare_model_for_kbit_training "
                        "enables gradient checkpointing; none otherwise); with FlashAttention, selective is per-op "
                        "selective checkpointing (torchtitan), while Megatron-LM's --recompute-activations redoes "
                        "only the attention core, which keeps what none keeps: give none for it"))
    m.add_argument("--recompute-layers", type=int, default=None, metavar="N",
                   help=_("with --recompute full in full training: only N layers of each pipeline stage (of the model "
                          "without --pp) are recomputed, the others keep every activation (Megatron-LM "
                          "--recompute-method block --recompute-num-layers N; torchtitan selective_ac_option k "
                          "recomputes layers / k); default: all"))
    m.add_argument("--expert-parallel", type=int, default=1, metavar="N",
                   help=_("full training or LoRA (16/32-bit base) of an MoE model: the routed experts are spread over N GPUs of each pipeline "
                          "stage, each holding experts / N whole experts, their optimizer states sharded over the "
                          "GPUs / (N x tp x pp) that hold the same experts (Megatron-LM "
                          "--expert-model-parallel-size N); default 1"))
    m.add_argument("--expert-tensor-parallel", type=int, default=None, metavar="N",
                   help=_("full training with --expert-parallel: each routed expert's matrices are split over N GPUs "
                          "(Megatron-LM --expert-tensor-parallel-size N); default: the --tp size"))
    m.add_argument("--no-flash", action="store_true", help=_("attention without FlashAttention (stores the s x s scores)"))
    m.add_argument("--tp", type=int, default=1, metavar="N", help=_("tensor-parallel degree"))
    m.add_argument("--sp", action="store_true", help=_("sequence parallel with tensor parallel (activations split by --tp)"))
    m.add_argument("--sp-gathered-inputs", action="store_true",
                   help=_("with --sp: the column-parallel linears save their all-gathered input (PyTorch DTensor "
                          "sequence parallel, torchtitan), not the shard Megatron-LM gathers again in backward"))
    m.add_argument("--cp", type=int, default=1, metavar="N", help=_("context-parallel degree (sequence split over N GPUs)"))
    m.add_argument("--pp", type=int, default=1, metavar="N",
                   help=_("pipeline-parallel stages (training; --batch is then the batch per data-parallel rank); "
                          "inference: GPUs that hold whole layers and run in turn (HF device_map=\"auto\", vLLM "
                          "pipeline parallel), sized on the fullest"))
    m.add_argument("--pp-schedule", default="1f1b", choices=("1f1b", "interleaved-1f1b", "gpipe"),
                   help=_("pipeline schedule (PyTorch torch.distributed.pipelining names)"))
    m.add_argument("--pp-microbatches", type=int, default=None, metavar="M",
                   help=_("pipeline micro-batches the batch is split into (default: the --pp degree, as torchtitan)"))
    m.add_argument("--global-batch", type=int, default=None, metavar="G",
                   help=_("training sequences per optimizer step over all GPUs, Megatron style: --batch is then one "
                          "micro-batch, and each data-parallel rank runs G / (batch x data-parallel) of them a step "
                          "(the pipeline micro-batches with --pp, gradient accumulation without)"))
    m.add_argument("--pp-stages-per-rank", type=int, default=None, metavar="V",
                   help=_("model chunks per pipeline rank with interleaved-1f1b (default 2)"))
    m.add_argument("--loss", default="standard", choices=LOSS_MODES,
                   help=_("cross-entropy: standard (full fp32 logits), standard-kept (standard, and the loop keeps the "
                        "fp32 logits the model returned referenced through backward, e.g. prime-rl's SFT trainer: 16 "
                        "bytes a logit), standard-16bit (16-bit logits, no fp32 upcast: a model "
                        "that does not upcast its logits, run without autocast as under DeepSpeed), "
                        "standard-compiled (fp32 upcast inside a torch.compile'd loss, e.g. torchtitan since 2025-04), "
                        "chunked (torchtune), fused (Liger fused linear CE), inplace-16bit (16-bit logits, gradient "
                        "written in place: Unsloth's Triton cross-entropy), vocab-chunked (output layer and loss walked "
                        "over --loss-vocab-chunk vocabulary columns at a time, logits never whole: prime-rl's RL "
                        "FusedOutputLinear), sum-16bit (outputs.logits.sum() over 16-bit logits kept through "
                        "backward, as the transformers SDPA training benchmarks do: the logits and one dense copy of "
                        "their gradient, 4 bytes a logit); Megatron-LM / Megatron-Core runs use "
                        "standard-16bit: their unfused vocab-parallel cross-entropy "
                        "(megatron/core/tensor_parallel/cross_entropy.py) keeps one fp32 copy of the logits, turned "
                        "into the softmax and then the gradient in place (6 bytes a logit, not standard's 12)"))
    m.add_argument("--loss-vocab-chunk", type=int, default=None, metavar="COLUMNS",
                   help=_("with --loss vocab-chunked: vocabulary columns the output layer and loss compute at a time "
                          "(default {columns}, prime-rl's RL trainer)").format(columns=DEFAULT_VOCAB_CHUNK_COLUMNS))
    m.add_argument("--optimizer-in-backward", action="store_true", help=_("step each parameter in backward (no full gradient buffer)"))
    m.add_argument("--activation-offload", action="store_true", help=_("saved activations offloaded to host memory"))
    m.add_argument("--compile", action="store_true", help=_("torch.compile / fused kernels (fewer saved activations than eager)"))
    m.add_argument("--grad-accum", type=int, default=1, metavar="N", help=_("gradient-accumulation steps (>1 keeps gradients alive in forward)"))
    m.add_argument("--fsdp-version", type=int, default=2, choices=(1, 2),
                   help=_("with --sharding fsdp: 1 = FullyShardedDataParallel (flat parameters), 2 = fully_shard"))
    m.add_argument("--optimizer-impl", default="foreach", choices=("foreach", "fused", "for-loop"),
                   help=_("Adam step: foreach (PyTorch >= 2.0 default, one state-sized temporary), fused, or "
                        "for-loop (PyTorch 1.x, HF adamw_hf)"))
    m.add_argument("--zero-grad-keeps-grads", action="store_true",
                   help=_("zero_grad() zero-fills gradients instead of freeing them (PyTorch < 2.0 default)"))
    m.add_argument("--kbit-fp32-upcast", action="store_true",
                   help=_("lora/qlora after PEFT prepare_model_for_kbit_training: norms, embeddings and LM head in fp32"))
    m.add_argument("--kbit-embeddings-bf16", action="store_true",
                   help=_("TRL's SFTTrainer under bf16 (peft_module_casting_to_bf16): norms in fp32, embeddings and LM "
                          "head in bf16 (cast back after --kbit-fp32-upcast, else as loaded)"))
    m.add_argument("--fsdp1-mixed-flat-params", action="store_true",
                   help=_("lora/qlora with --fsdp-version 1: adapters share FlatParameters with the frozen base (no "
                        "separate wrap), so the base gets gradients"))
    m.add_argument("--fsdp1-sync-each-batch", action="store_true",
                   help=_("with --fsdp-version 1 and --grad-accum: the loop reduce-scatters every micro-batch (torchtune, "
                        "Accelerate sync_each_batch) instead of accumulating full gradients under no_sync()"))
    m.add_argument("--fsdp2-no-sync", default="off", choices=FSDP2_NO_SYNC,
                   help=_("with --sharding fsdp --fsdp-version 2 and --grad-accum: off (default: the loop reduce-scatters "
                          "every micro-batch, torchtitan, torchtune); fp32: set_requires_gradient_sync(False) on the "
                          "non-final micro-batches keeps each GPU's full gradients in the fp32 reduce dtype (Accelerate "
                          "since PR 3762); grad-dtype: the same in the gradients' own dtype"))
    m.add_argument("--tp-whole-logits", action="store_true",
                   help=_("full training with --tp: the output layer gathers the whole vocabulary logits on every GPU "
                          "for a plain cross-entropy (no loss parallel: torchtitan disable_loss_parallel, KempnerForge)"))
    m.add_argument("--tp-replicated-embedding", action="store_true",
                   help=_("full training with --tp: the token embedding stays whole on every tensor-parallel GPU "
                          "(KempnerForge); the default shards it"))
    m.add_argument("--ddp-bucket-view", action="store_true",
                   help=_("full training with --sharding ddp: the gradients are views into the all-reduce buckets "
                          "(PyTorch DDP gradient_as_bucket_view=True, Megatron-Core DDP), so no second copy"))
    m.add_argument("--fp32-grad-buffer", action="store_true",
                   help=_("full training: the gradients of the 16-bit parameters accumulate in an fp32 buffer, 4 bytes "
                          "a parameter, allocated with the model and alive for the whole run (Megatron-LM with "
                          "--bf16)"))
    m.add_argument("--main-grads-kept", action="store_true",
                   help=_("full training with --sharding ddp and precision fp16/bf16: the optimizer keeps the fp32 "
                          "main gradients between steps and the all-reduce packs the gradients into one flat copy "
                          "(Megatron-LM's fp16 optimizer with local DDP before contiguous buffers, 2021)"))
    m.add_argument("--unfused-gelu", action="store_true",
                   help=_("training whose MLP activation is the tanh GELU computed op by op in eager PyTorch "
                          "(transformers gelu_new, NewGELUActivation): three more MLP-wide tensors saved a layer"))
    m.add_argument("--fused-norm", action="store_true",
                   help=_("training in eager PyTorch whose RMSNorms run in a fused kernel (apex FusedRMSNorm, Megatron-LM "
                          "forks with --apply-layernorm-rms): no fp32 copies of the norms saved; the SiLU output still is"))
    m.add_argument("--grouped-kv-attention", action="store_true",
                   help=_("training of a grouped-query (GQA) model whose attention kernel takes the keys and values "
                          "un-repeated (flash-attn flash_attn_func: transformers flash_attention_2, Megatron/"
                          "Transformer Engine): they are saved at kv heads x head dim; default: repeated to every "
                          "query head first (repeat_kv before SDPA: torchtitan, torchtune, transformers sdpa/eager)"))
    m.add_argument("--eager-softmax", default="16bit", choices=EAGER_SOFTMAX,
                   help=_("training of 16-bit weights without a fused attention kernel (--no-flash): how the eager "
                          "softmax is written; 16bit (default: a fused softmax kernel, 5 bytes kept a score), fp32 "
                          "(softmax in fp32 cast back, transformers eager attention: 6 bytes) or fp32-clamped (the "
                          "masked scores clamped with torch.max first, OPT: 8 bytes)"))
    m.add_argument("--encoder-lm-head", action="store_true",
                   help=_("full training of an encoder (BERT, RoBERTa, DistilBERT) with its masked-language-model head "
                          "over every position: counts the vocabulary logits (kept as --loss says) and the head's "
                          "dense, GELU and LayerNorm; off: a classifier head, no vocabulary logits"))
    m.add_argument("--fsdp-root-only", action="store_true",
                   help=_("full training with --sharding fsdp and no auto-wrap policy (Lightning FSDPStrategy() "
                          "without auto_wrap_policy): the whole model is one FSDP unit, unsharded through forward "
                          "and backward"))
    m.add_argument("--fsdp1-no-rate-limiter", action="store_true",
                   help=_("training with --sharding fsdp --fsdp-version 1 and limit_all_gathers=False (PyTorch 2.0's "
                          "default): the CPU issues the all-gathers ahead of the GPU, every unit counted unsharded at "
                          "once"))
    m.add_argument("--cuda-lazy-loading", default="on", choices=("on", "off"),
                   help=_("CUDA lazy module loading (off: CUDA < 11.7 or CUDA_MODULE_LOADING=EAGER, a 1.3 GiB context)"))
    m.add_argument("--cuda-major-version", type=int, default=12, choices=CUDA_MAJOR_VERSIONS,
                   help=_("the CUDA major version of the PyTorch build (torch.version.cuda): with lazy loading off, "
                          "10 (PyTorch <= 1.8 +cu10x wheels) loads CUDA 10's smaller kernel libraries, a context "
                          "of about 0.9 GiB instead of 1.3 GiB"))
    m.add_argument("--driver-reserved-mib", type=int, default=0, metavar="MIB",
                   help=_("the framebuffer the NVIDIA driver reserves on each GPU (nvidia-smi -q -d MEMORY: "
                          "Reserved), added to the device figure only: give it when your reading includes it "
                          "(NVML's v1 nvmlDeviceGetMemoryInfo used: py3nvml, pynvml without version=2); "
                          "default 0, as nvidia-smi's Used and a process's own memory"))
    m.add_argument("--kv-cache-impl", default="paged", choices=("paged", "dynamic", "legacy-tuple", "static", "static-linear-mask"),
                   help=_("inference KV cache: paged (vLLM/SGLang), dynamic (HF DynamicCache kept by generate, transformers "
                        ">= 4.42), legacy-tuple (tuple past_key_values, transformers <= 4.41 generate), static "
                        "(gpt-fast, quadratic causal mask), static-linear-mask"))
    m.add_argument("--prompt-tokens", type=int, default=None, metavar="N",
                   help=_("inference: prompt tokens per sequence, the prefill's length (default: all of --seq)"))
    m.add_argument("--prompt-logits", default="last", choices=("last", "all", "all-16bit"),
                   help=_("inference prefill logits: last (last prompt position; transformers >= 4.45, vLLM, SGLang), "
                        "all (every prompt position upcast to fp32; transformers <= 4.44 generate) or all-16bit (every "
                        "prompt position at the 16-bit dtype, a forward that does not upcast, e.g. OPT)"))
    m.add_argument("--mla-decode-weights", default="up-proj", choices=("up-proj", "absorbed", "none"),
                   help=_("inference of an MLA model (DeepSeek-V2/V3): 16-bit decode matrices the engine builds, up-proj "
                        "(vLLM since 2025-03), absorbed (vLLM 0.7.1 to 0.7.3) or none (HF transformers)"))
    m.add_argument("--fused-qkv-load", action="store_true",
                   help=_("inference: q, k and v are fused after loading, briefly held twice (AutoAWQ fuse_layers=True)"))
    m.add_argument("--prefill-kv-kept", action="store_true",
                   help=_("inference with a static KV cache: the fused attention also returns the prompt's keys and "
                          "values, which the model keeps for every layer until the prefill ends (AutoAWQ "
                          "fuse_layers=True before 0.1.6 inside transformers' Llama model)"))
    m.add_argument("--gptq-kernel", default="none", choices=("none", "exllama", "exllama-act-order", "exllamav2"),
                   help=_("inference of 4-bit GPTQ weights through AutoGPTQ's ExLlama kernels, which keep a scratch for "
                          "the run: exllama, exllama-act-order (desc_act checkpoints), exllamav2; none: other kernels"))
    m.add_argument("--load-dtype", default="weight-format", choices=LOAD_DTYPES,
                   help=_("inference with 16-bit weights: how they reach the GPU; weight-format (default: loaded as "
                          "they run) or fp32 (loaded as fp32 onto the GPU and cast there, e.g. from_pretrained without "
                          "torch_dtype then .cuda().half(): the peak may be the cast, and the fp32 blocks stay reserved)"))
    m.add_argument("--decode-attention", default="fused", choices=DECODE_ATTENTIONS,
                   help=_("inference with a contiguous KV cache (--kv-cache-impl static, dynamic or legacy-tuple; the "
                          "default paged cache is refused): the attention of each decode step; fused (default: a "
                          "fused kernel reads the cache in place), math-16bit / math-fp32 (eager PyTorch on the math SDPA "
                          "backend, as gpt-fast / torchao generate.py: whole-context K/V copies of a layer; fp32 from "
                          "PyTorch 2.5)"))
    m.add_argument("--max-input-tokens", type=int, default=2048, metavar="N",
                   help=_("with --gptq-kernel exllama-act-order: the longest input its buffer is sized for "
                          "(AutoGPTQ max_input_length, exllama_set_max_input_length; default 2048)"))
    m.add_argument("--tp-replicated-vocab", action="store_true",
                   help=_("inference: tensor parallelism keeps the embedding and LM head whole on every GPU (lit-gpt "
                          "generate/tp.py; vLLM splits them)"))
    m.add_argument("--embeddings-on-host", action="store_true",
                   help=_("inference: the input embedding table stays in host memory (ExLlama's device map)"))
    m.add_argument("--eval-batch", type=int, default=0, metavar="N",
                   help=_("lora/qlora under Hugging Face Trainer with an evaluation strategy: the per-device eval "
                          "batch of the evaluation passes inside the run (Trainer default 8; 0: none)"))
    m.add_argument("--eval-no-cache", action="store_true",
                   help=_("with --eval-batch: the eval forward builds no KV cache (config.use_cache=False)"))
    m.add_argument("--eval-loss", default="", choices=LOSS_MODES,
                   help=_("with --eval-batch: the loss of the eval forward when it differs from --loss (Unsloth "
                          "evaluates with 16-bit logits, inplace-16bit, while it trains with its fused loss)"))
    m.add_argument("--no-kv-cache", action="store_true",
                   help=_("inference that generates without a KV cache (transformers generate(use_cache=False)): "
                          "every new token re-runs the whole sequence; the peak is one forward pass over --seq"))
    m.add_argument("--zero3-max-reuse-distance", type=_elements, default=_NOT_GIVEN, metavar="N",
                   help=_("DeepSpeed ZeRO-3 stage3_max_reuse_distance in elements (default 1e9): gathered parameters "
                          "used again within this many are kept"))
    m.add_argument("--zero3-max-live-params", type=_elements, default=_NOT_GIVEN, metavar="N",
                   help=_("DeepSpeed ZeRO-3 stage3_max_live_parameters (default 1e9): cap on prefetched parameters"))
    m.add_argument("--zero3-prefetch-bucket", type=_elements, default=_NOT_GIVEN, metavar="N",
                   help=_("DeepSpeed ZeRO-3 stage3_prefetch_bucket_size in elements (default auto: 0.9 x hidden^2)"))
    m.add_argument("--zero3-persistence-threshold", type=_elements, default=_NOT_GIVEN, metavar="N",
                   help=_("DeepSpeed ZeRO-3 stage3_param_persistence_threshold in elements (default auto: 10 x "
                          "hidden): smaller parameters are never partitioned"))
    m.add_argument("--zero3-reduce-bucket", type=_elements, default=_NOT_GIVEN, metavar="N",
                   help=_("DeepSpeed ZeRO-3 reduce_bucket_size in elements (default auto: hidden^2): the flat "
                          "gradient bucket kept on the GPU"))
    m.add_argument("--zero2-reduce-bucket", type=_zero2_elements, default=None, metavar="N",
                   help=_("DeepSpeed ZeRO-2 reduce_bucket_size in elements (default DeepSpeed's 5e8; the Hugging Face "
                          "Trainer's \"auto\" fills hidden_size x hidden_size, Lightning's deepspeed_stage_2 2e8): "
                          "the gradient bucket on the GPU during backward"))
    m.add_argument("--zero3-defaults", choices=ZERO3_DEFAULTS, default=_NOT_GIVEN,
                   help=_("where the ZeRO-3 bucket sizes and persistence threshold you leave out come from: hf-auto "
                          "(default: the DeepSpeed config says \"auto\", filled from the hidden size by the Hugging "
                          "Face Trainer or accelerate) or deepspeed (the config leaves them out, as accelerate's "
                          "DeepSpeed plugin without a config file does: DeepSpeed's reduce bucket 5e8, prefetch "
                          "bucket 5e7, persistence threshold 1e5)"))
    m.add_argument("--zero3-outside-init", action="store_true", default=_NOT_GIVEN,
                   help=_("full training or LoRA with --sharding zero3 of a model built outside deepspeed.zero.Init "
                          "(from_pretrained before TrainingArguments): the engine first moves the whole model to "
                          "every GPU, and F.linear is not replaced, so autograd keeps every gathered Linear weight "
                          "from its forward to its backward"))
    m.add_argument("--bnb-fp32-compute", action="store_true",
                   help=_("inference of bitsandbytes 4-bit weights (nf4) whose layers compute in fp32: "
                          "BitsAndBytesConfig without bnb_4bit_compute_dtype (transformers' default float32)"))
    m.add_argument("--kv-block-tokens", type=int, default=16, metavar="N",
                   help=_("paged KV block size in tokens (vLLM 16, SGLang 1)"))
    m.add_argument("--framework", default=None, choices=FRAMEWORKS,
                   help=_("framework family whose published cases give the expected error band (the estimate is unchanged)"))
    m.add_argument("--lora-rank", type=int, default=16, metavar="R")
    m.add_argument("--lora-targets", default="all-linear", metavar="LIST", help=_("comma-separated modules or all-linear/attention/mlp"))
    m.add_argument("--lora-dropout", type=float, default=0.0, metavar="P",
                   help=_("adapter dropout (PEFT default 0; above 0 every adapter keeps its own copy of its input)"))
    m.add_argument("--legacy-bnb-matmul", action="store_true",
                   help=_("qlora with bitsandbytes older than 0.43.2: every 4-bit Linear keeps its input for backward"))
    m.add_argument("--non-reentrant-checkpoint", action="store_true",
                   help=_("lora/qlora with --recompute full run by non-reentrant checkpointing (use_reentrant=False, "
                          "checkpoint_wrapper NO_REENTRANT): a bitsandbytes base (--legacy-bnb-matmul, or --base-weights "
                          "int8) keeps every layer's Linear inputs from forward to backward; unset, reentrant "
                          "(transformers' default), which keeps none"))
    m.add_argument("--lora-kernels", default="peft", choices=LORA_KERNELS,
                   help=_("LoRA autograd: peft (one node per Linear and adapter) or fused (Unsloth's fused LoRA blocks keep "
                          "only the MLP input and the gate and up outputs)"))
    m.add_argument("--base-weights", default="precision", choices=LORA_BASE_WEIGHTS,
                   help=_("lora: the frozen base at --precision (default), int8 (bitsandbytes LLM.int8, load_in_8bit: "
                          "1 byte a Linear weight, each 8-bit Linear keeps its 16-bit input for backward) or fp32 "
                          "(with --sharding fsdp/zero3: the model loaded in fp32 and cast to the 16-bit --precision unit "
                          "by unit by FSDP mixed precision, also on one GPU, e.g. prime-rl)"))
    m.add_argument("--modules-to-save", default=None, metavar="LIST",
                   help=_("lora/qlora with PEFT modules_to_save: embed_tokens, lm_head and/or norms (every norm layer) "
                          "(comma-separated), trained as full copies beside the frozen originals"))
    m.add_argument("--no-double-quant", action="store_true",
                   help=_("qlora base without bitsandbytes double quantisation (4.5 instead of 4.127 bits a weight)"))
    m.add_argument("--weight-loading", default="per-tensor", choices=WEIGHT_LOADERS,
                   help=_("how the weights reach the GPU: per-tensor, nf4-nearest-search (torchao to_nf4 before May "
                        "2024) or fsdp1-sync-states (FSDP1 sync_module_states from rank 0); loading can set the "
                        "reserved peak"))
    m.add_argument("--weight-format", default=None, metavar="FMT",
                   help=_("inference weights: checkpoint (default: as the model's checkpoint ships, e.g. mxfp4 for "
                        "gpt-oss), bf16, fp8, int8, int4-g128, nf4-dq, mxfp4 ..."))
    m.add_argument("--kv-precision", default="bf16", metavar="P", help=_("KV-cache precision (bf16, fp16, fp8, int8)"))
    m.add_argument("--activation-bytes-per-sample", type=int, metavar="BYTES",
                   help=_("activations per sample for non-transformer models (CNN, 3D U-Net), measured or derived"))
    m.add_argument("--gpu", metavar="NAME", help=_("compare with this catalog GPU's usable memory and safe line"))
    m.add_argument("--safe-free", type=float, default=None, metavar="F", help=_("share of usable memory to keep free (default 0.20)"))
    m.add_argument("--json", action="store_true", help=_("print a JSON object"))
    m.set_defaults(func=cmd_estimate_memory)
    add_speed_parser(esub, _tokens)
    add_serve_parser(esub)
    for name in ("validate", "accuracy"):
        v = esub.add_parser(name, help=_("compare the estimator with published measured peaks (share within 15 %%, median error)"))
        v.add_argument("--cases", metavar="FILE.jsonl", help=_("validation set (default: the bundled measured_peaks.jsonl)"))
        v.add_argument("--json", action="store_true", help=_("print a JSON object: summary and every case"))
        v.set_defaults(func=cmd_estimate_validate)


def _catalog():
    from gpudesk.catalog import CatalogError, open_catalog

    try:
        return open_catalog()
    except CatalogError as exc:
        raise CliError.from_error(exc, status=1) from exc


def _emit(text: str, output: str | None) -> None:
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CliError(_("cannot write {path}: {error}").format(path=output, error=exc.strerror or exc)) from exc
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _render(fmt: str, data, profile, index: int, catalog) -> str:
    """Markdown sheet / CSV bill of materials through the configuration-sheet renderers."""
    from gpudesk.planner.sheet import SheetError
    from gpudesk.planner.sheet_csv import plan_to_csv
    from gpudesk.planner.sheet_markdown import plan_to_markdown

    try:
        if fmt == "csv":
            return plan_to_csv(data, index, profile=profile, catalog=catalog)
        return plan_to_markdown(data, index, profile=profile, catalog=catalog)
    except SheetError as exc:
        raise CliError.from_error(exc, status=1) from exc


def my_prices() -> dict | None:
    """The user's own GPU prices from the user store, or None when they cannot be read (a note goes to stderr;
    the plan then uses catalog prices only). Read-only and without sqlite-utils: planning starts fast."""
    from gpudesk.store.errors import StoreError
    from gpudesk.store.prices import read_price_overrides

    try:
        return read_price_overrides()
    except StoreError as exc:
        print(_('note: your prices are not used, they could not be read: {exc}').format(exc=exc), file=sys.stderr)
        return None


def deciding_reasons(rejected, limit: int = 5) -> str:
    """The rejections that say the most: one per distinct reason (the same rule over many GPUs is one entry)."""
    import re

    seen: dict[str, str] = {}
    for r in rejected:
        for reason in r.reasons:
            # Numbers and names differ between GPUs; the rule's wording does not.
            rule = re.sub(r"[\d.,]+|\b[A-Z][\w-]*\b", "#", reason)[:60]
            if rule not in seen:
                seen[rule] = f"{r.gpu_id}: {reason}"
    return "; ".join(list(seen.values())[:limit])


def cmd_plan(args: argparse.Namespace) -> int:
    from gpudesk.planner import (
        PlanInputError,
        load_profile,
        requirement_from_dict,
    )
    from gpudesk.planner.mixed import plan_document
    from gpudesk.planner.requirement import raise_problems
    from gpudesk.planner.workload import profile_problems
    from gpudesk.sizing import SizingError

    if args.help_profile:
        from gpudesk.planner.profile_doc import profile_reference

        _emit(profile_reference(), None)
        return 0
    if not args.profile and not flags_given(args):
        raise CliError(_("give a requirement: --profile FILE.toml, or flags such as --model NAME --mode lora --tokens "
                         "2e8 --deadline 7d (gpudesk plan --help for the flags, --help-profile for every key)"))
    if args.format == "pdf" and not args.output:
        raise CliError(_("--format pdf writes a file: add --output FILE.pdf"))
    catalog = _catalog()
    where = args.profile or _("the flags")
    try:
        # With the catalog, an unknown model is reported first, with every other problem of the profile.
        if flags_given(args):
            req = requirement_from_dict(profile_from_args(args))
            raise_problems(profile_problems(req, catalog))
        else:
            req = load_profile(args.profile, catalog)
    except PlanInputError as exc:
        by_flag = _problems_by_flag(exc, args)
        if by_flag and not args.profile:
            raise CliError(by_flag) from exc
        what = exc.detail if exc.field == "profile" else str(exc)  # no "profile x: profile: ..." stutter
        raise CliError(_("profile {profile}: {error}").format(profile=where, error=by_flag or what)) from exc
    prices = None if args.no_my_prices else my_prices()
    try:
        doc = plan_document(req, catalog, prices)  # the one plan document (a mixed workload: both sides)
    except PlanInputError as exc:
        if (exc.field or "").startswith("price_overrides."):
            raise CliError(_("your price for {gpu}: {detail} (or use --no-my-prices)").format(
                gpu=str(exc.field).split(".", 1)[1], detail=exc.detail)) from exc
        by_flag = _problems_by_flag(exc, args)  # a key a flag set (--expert-parallel) is named by its flag
        if by_flag and not args.profile:
            raise CliError(by_flag) from exc
        raise CliError(_("profile {profile}: {error}").format(profile=where, error=by_flag or exc)) from exc
    except SizingError as exc:
        raise CliError(_("profile {profile}: {error}").format(profile=where, error=exc)) from exc
    if args.format == "json":
        _emit(dumps_json(doc.to_dict(), ensure_ascii=False), args.output)  # json.dumps(data, indent=2, ensure_ascii=False), faster, RFC 8259
    else:
        if not doc.candidates:
            raise CliError(_("no GPU configuration can run this requirement ({reasons}). Use --format json for every "
                             "rejection.").format(reasons=deciding_reasons(doc.rejected)), status=1)
        if not 1 <= args.candidate <= len(doc.candidates):
            raise CliError(_("--candidate must be between 1 and {n}").format(n=len(doc.candidates)))
        if args.format == "pdf":
            from gpudesk.cli.sheet_pdf import write_pdf

            write_pdf(_render("md", doc, req, args.candidate - 1, catalog), args.output, req.name,
                      doc.to_dict(), args.candidate - 1)
            return 0
        _emit(_render(args.format, doc, req, args.candidate - 1, catalog), args.output)
    return 0


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9.]+", text.lower()))


def _say_how_model_matched(query: str, found) -> None:
    """Tell the user (on stderr) which catalog model ``--model`` became, unless the text was its id or name."""
    if _norm(query) in (_norm(found.id), _norm(found.name)):
        return
    print(_('--model {query!r} matched catalog model {name} (id {id}); pass --model {id} to silence this note').format(query=query, name=found.name, id=found.id), file=sys.stderr)


def _problems_by_flag(exc: Exception, args: argparse.Namespace) -> str:
    """The requirement's problems, each under the flag that set its key (``--budget: must be a finite number``);
    a key the flags did not set keeps its profile name. Empty when no problem came from a flag."""
    flag_of = {".".join(FLAG_KEYS[dest]): "--" + dest.replace("_", "-") for dest in flags_given(args)}
    problems = list(getattr(exc, "problems", None) or [exc])
    if not any(getattr(p, "field", None) in flag_of for p in problems):
        return ""
    return " ".join(_("{flag}: {problem}").format(flag=flag_of.get(p.field, p.field), problem=p.reason)
                    for p in problems)


def _spec(args):
    from gpudesk.planner import PlanInputError
    from gpudesk.planner.requirement import ModelMemory
    from gpudesk.planner.workload import resolve_model
    from gpudesk.sizing import ShapeError, parse_param_count
    from gpudesk.sizing.shapes import is_repo_id

    for flag, text in (("--model", args.model), ("--config", args.config), ("--params", args.params)):
        if text is not None and not text.strip():
            raise CliError(_("{flag}: the value is empty; give a catalog model id, a config.json path or a "
                             "parameter count such as 13B.").format(flag=flag))
    try:
        if args.model:
            spec = resolve_model(ModelMemory(model=args.model), _catalog())
            if not is_repo_id(args.model.strip()):  # a repo id is exact (catalog row or the local HF cache)
                _say_how_model_matched(args.model, _catalog().find_model(args.model))
            return spec
        if args.config:
            return resolve_model(ModelMemory(config_path=args.config))
        return resolve_model(ModelMemory(params=parse_param_count(args.params)))
    except (PlanInputError, ShapeError) as exc:
        flag = {"model.model": "--model", "model.config_path": "--config", "model.params": "--params", "params": "--params"}
        field = exc.field or ""
        raise CliError(_("{flag}: {problem}").format(flag=flag.get(field, field), problem=exc.reason)) from exc


def _modules_to_save(value: str | None) -> tuple[str, ...]:
    """The ``--modules-to-save`` names; an empty value (an unset shell variable) is an error, as for ``--gpu``."""
    if value is None:
        return ()
    names = tuple(t.strip() for t in value.split(",") if t.strip())
    if not names:
        raise CliError(_("{flag}: the value is empty; give embed_tokens, lm_head and/or norms, or leave the flag "
                         "out.").format(flag="--modules-to-save"))
    return names


def _tokens(text: str) -> int:
    """A token count: ``4096``, ``8k`` (8192) or ``32K``; a clear argparse error otherwise."""
    value = text.strip().lower()
    mult = 1
    if value.endswith("k"):
        value, mult = value[:-1], 1024
    if not value.isdigit() or len(value) > 9:
        raise argparse.ArgumentTypeError(_("{text!r} is not a token count; write e.g. 4096 or 8k.").format(text=text))
    return int(value) * mult


# Default of the ZeRO-3 flags: tells a flag the user typed (even at DeepSpeed's default value, or ``auto``) from one
# left out, so that a typed one outside ``--mode train --sharding zero3`` is refused instead of silently ignored.
_NOT_GIVEN = object()

# The ZeRO-3 flags' argparse destinations, their flags and the values a flag left out stands for (DeepSpeed's
# stage3_max_reuse_distance / stage3_max_live_parameters default 1e9; the bucket sizes ``auto``).
_ZERO3_FLAGS = (("zero3_max_reuse_distance", "--zero3-max-reuse-distance", 1_000_000_000),
                ("zero3_max_live_params", "--zero3-max-live-params", 1_000_000_000),
                ("zero3_prefetch_bucket", "--zero3-prefetch-bucket", None),
                ("zero3_persistence_threshold", "--zero3-persistence-threshold", None),
                ("zero3_reduce_bucket", "--zero3-reduce-bucket", None),
                ("zero3_defaults", "--zero3-defaults", "hf-auto"),
                ("zero3_outside_init", "--zero3-outside-init", False))


def _check_zero3_flags(args: argparse.Namespace) -> None:
    """Refuse a ZeRO-3 flag typed outside full training or LoRA under ``--sharding zero3`` (nothing else reads it; a
    value equal to DeepSpeed's default was silently ignored before), then fill the flags left out with their
    defaults."""
    zero3 = args.mode in ("train", "lora") and args.sharding == "zero3"
    for dest, flag, default in _ZERO3_FLAGS:
        if getattr(args, dest) is _NOT_GIVEN:
            setattr(args, dest, default)
        elif not zero3:
            raise CliError(_("{flag}: {problem}").format(flag=flag, problem=_(
                "this DeepSpeed ZeRO-3 setting applies to full training or LoRA with sharding zero3; leave it out.")))


def _elements(text: str) -> int | None:
    """A DeepSpeed element count as its config writes it (``1e9``, ``500000000``), or ``auto`` (None: Hugging Face's
    fill from the hidden size); a clear argparse error otherwise."""
    value = text.strip().lower().replace("_", "")
    if value == "auto":
        return None
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not (0 <= number <= 1e13) or number != int(number):
        raise argparse.ArgumentTypeError(_("{text!r} is not a number of elements; write e.g. 1e9, 500000000 or auto.")
                                         .format(text=text))
    return int(number)


def _zero2_elements(text: str) -> int:
    """``--zero2-reduce-bucket``: a number of elements; ``auto`` is refused, as its fill depends on the framework."""
    value = _elements(text)
    if value is None:
        raise argparse.ArgumentTypeError(_("write the number of elements: the Hugging Face Trainer's \"auto\" is "
                                           "hidden_size x hidden_size, DeepSpeed's default 5e8."))
    return value


def _check_params_text(text: str) -> None:
    """``--params 8`` would mean eight parameters: ask for a unit instead of guessing."""
    bare = text.strip().replace("_", "").replace(",", "")
    try:
        number = float(bare)
    except ValueError:
        return
    if number < 1e6:
        raise CliError(_("--params: {text!r} has no unit and would mean {bare} parameters; write e.g. {bare}B or {bare}M.")
                       .format(text=text, bare=bare))


def cmd_estimate_validate(args: argparse.Namespace) -> int:
    from gpudesk.sizing import SizingError
    from gpudesk.sizing.validation import evaluate, summarize

    try:
        results = evaluate(args.cases)
    except SizingError as exc:
        raise CliError(_("{flag}: {problem}").format(flag="--cases", problem=exc.reason)) from exc
    summary = summarize(results)
    speed_results, speed_summary = _speed_accuracy()
    if args.json:
        from gpudesk.sizing.error_band import bands_by_class

        _emit(dumps_json({"summary": summary, "bands_by_class": bands_by_class(results),
                          "cases": [r.to_dict() for r in results], "engines": engines_accuracy(),
                          "speed": {"summary": speed_summary, "rows": [r.to_dict() for r in speed_results]}},
                         indent=2), None)
        return 0
    lines = [f"{'case':<42}{'stat':<10}{'measured GiB':>13}{'estimate GiB':>13}{'ratio':>8}"]
    for r in results:
        mark = "" if r.supported else _("  (not scored: {why})").format(why=r.description[:90])
        lines.append(f"{r.case_id:<42}{r.statistic:<10}{r.measured_bytes / GIB:>13.2f}{r.estimated_bytes / GIB:>13.2f}"
                     f"{r.ratio:>8.2f}{mark}{'  error: ' + r.error if r.error else ''}")
    lines += ["", _("scored cases: {cases} (not scored: {unscored}), sources: {sources}").format(
                  cases=summary["cases"], unscored=summary["unsupported_cases"], sources=summary["sources"]),
              _("within 15 %: {w15:.0%}   within 25 %: {w25:.0%}   median absolute error: {median:.1%}").format(
                  w15=summary["within_15_share"], w25=summary["within_25_share"], median=summary["median_abs_error"])]
    for group, template in (("by_method", _("  method {key:<10} {cases:>3} cases, within 15 %: {w15:.0%}, median error {median:.1%}")),
                            ("by_gpus", _("  GPUs {key:<10} {cases:>3} cases, within 15 %: {w15:.0%}, median error {median:.1%}"))):
        for key, sub in summary[group].items():
            if sub["cases"]:
                lines.append(template.format(key=key, cases=sub["cases"], w15=sub["within_15_share"],
                                             median=sub["median_abs_error"]))
    later = summary["added_later"]
    if later["cases"]:
        lines.append(_("  rows added later {cases:>3} cases, within 15 %: {w15:.0%}, median error {median:.1%}").format(
            cases=later["cases"], w15=later["within_15_share"], median=later["median_abs_error"]))
    fresh = summary["fresh"]
    if fresh["rows"]:
        lines.append(_("  fresh rows (mapped before any estimate, never tuned on; not in the figures above) {cases:>3} "
                       "cases, within 15 %: {w15:.0%}, within 25 %: {w25:.0%}, median error {median:.1%}").format(
            cases=fresh["cases"], w15=fresh["within_15_share"], w25=fresh["within_25_share"],
            median=fresh["median_abs_error"]))
        for key, sub in fresh["by_method"].items():
            lines.append(_("    fresh method {key:<10} {cases:>3} cases, within 15 %: {w15:.0%}, median error {median:.1%}")
                         .format(key=key, cases=sub["cases"], w15=sub["within_15_share"], median=sub["median_abs_error"]))
    fresh2 = summary["fresh-2"]
    if fresh2["rows"]:
        lines.append(_("  fresh-2 rows (collected after the fresh rows were scored, mapped before any estimate, never tuned "
                       "on) {cases:>3} of {rows} rows scored, within 15 %: {w15:.0%}, within 25 %: {w25:.0%}, median error "
                       "{median:.1%}").format(cases=fresh2["cases"], rows=fresh2["rows"], w15=fresh2["within_15_share"],
                                              w25=fresh2["within_25_share"], median=fresh2["median_abs_error"]))
        for key, sub in fresh2["by_method"].items():
            lines.append(_("    fresh-2 method {key:<10} {cases:>3} cases, within 15 %: {w15:.0%}, median error "
                           "{median:.1%}").format(key=key, cases=sub["cases"], w15=sub["within_15_share"],
                                                  median=sub["median_abs_error"]))
    for name, previous in (("fresh-3", "fresh-2"), ("fresh-4", "fresh-3"), ("fresh-5", "fresh-4"),
                           ("fresh-6", "fresh-5"), ("fresh-7", "fresh-6"), ("fresh-8", "fresh-6"),
                           ("fresh-9", "fresh-8"), ("fresh-10", "fresh-9"), ("fresh-11", "fresh-10"),
                           ("fresh-12", "fresh-10"), ("fresh-13", "fresh-12"),
                           ("fresh-14", "fresh-13"), ("fresh-15", "fresh-14"), ("fresh-16", "fresh-15"), ("fresh-17", "fresh-15"), ("fresh-18", "fresh-17"), ("fresh-19", "fresh-18"), ("fresh-20", "fresh-19"), ("fresh-21", "fresh-20"), ("fresh-22", "fresh-21"), ("fresh-23", "fresh-22"), ("fresh-24", "fresh-23"), ("fresh-25", "fresh-24"), ("fresh-26", "fresh-25"), ("fresh-27", "fresh-26"), ("fresh-28", "fresh-27"), ("fresh-29", "fresh-28"), ("fresh-30", "fresh-29"), ("fresh-31", "fresh-30"), ("fresh-32", "fresh-31"), ("fresh-33", "fresh-32"), ("fresh-34", "fresh-33"), ("fresh-35", "fresh-33"), ("fresh-36", "fresh-33"), ("fresh-37", "fresh-35"), ("fresh-38", "fresh-37"), ("fresh-39", "fresh-38"), ("fresh-40", "fresh-38"), ("fresh-41", "fresh-40"), ("fresh-42", "fresh-41"), ("fresh-43", "fresh-42"), ("fresh-44", "fresh-43"), ("fresh-45", "fresh-44"), ("fresh-46", "fresh-45"), ("fresh-47", "fresh-46"), ("fresh-48", "fresh-47"), ("fresh-49", "fresh-48"), ("fresh-50", "fresh-49"), ("fresh-51", "fresh-50"), ("fresh-52", "fresh-51"), ("fresh-53", "fresh-52"), ("fresh-54", "fresh-53"), ("fresh-55", "fresh-54"), ("fresh-56", "fresh-55"), ("fresh-57", "fresh-56"), ("fresh-58", "fresh-57"), ("fresh-59", "fresh-58"), ("fresh-60", "fresh-59"), ("fresh-61", "fresh-60"), ("fresh-62", "fresh-61"), ("fresh-63", "fresh-62"), ("fresh-64", "fresh-63"), ("fresh-65", "fresh-64"), ("fresh-66", "fresh-65"), ("fresh-67", "fresh-66"), ("fresh-68", "fresh-67"), ("fresh-69", "fresh-68"), ("fresh-70", "fresh-69"), ("fresh-71", "fresh-70"), ("fresh-72", "fresh-71"), ("fresh-73", "fresh-72"), ("fresh-74", "fresh-73"), ("fresh-75", "fresh-74"), ("fresh-76", "fresh-75"), ("fresh-77", "fresh-76"), ("fresh-78", "fresh-77"), ("fresh-79", "fresh-78"), ("fresh-80", "fresh-79"), ("fresh-81", "fresh-80"), ("fresh-82", "fresh-81")):
        lines += _held_out_set_lines(name, previous, summary.get(name, {"rows": 0}))
    for peer, sub in summary["peers"].items():
        if sub["cases"]:
            lines.append(_("  formula {peer:<10} {cases:>3} model-state rows, within 15 %: {w15:.0%}, median error {median:.1%}")
                         .format(peer=peer, cases=sub["cases"], w15=sub["within_15_share"], median=sub["median_abs_error"]))
    from gpudesk.sizing.speed_validation import speed_report_lines

    lines += speed_report_lines(speed_results, speed_summary)
    _emit("\n".join(lines + [""] + engines_accuracy_lines()), None)
    return 0


def _held_out_set_lines(name: str, previous: str, sub: dict) -> list[str]:
    """Report lines of one held-out memory set (fresh-3 on): its summary, then by method and by GPU count."""
    if not sub["rows"]:
        return []
    lines = [_("  {name} rows (collected after the {previous} rows were scored, mapped before any estimate, never "
               "tuned on) {cases:>3} of {rows} rows scored, within 15 %: {w15:.0%}, within 25 %: {w25:.0%}, median "
               "error {median:.1%}").format(name=name, previous=previous, cases=sub["cases"], rows=sub["rows"],
                                            w15=sub["within_15_share"], w25=sub["within_25_share"],
                                            median=sub["median_abs_error"])]
    for group, template in (
            ("by_method", _("    {name} method {key:<10} {cases:>3} cases, within 15 %: {w15:.0%}, median error "
                            "{median:.1%}")),
            ("by_gpus", _("    {name} GPUs {key:<10} {cases:>3} cases, within 15 %: {w15:.0%}, median error "
                          "{median:.1%}"))):
        for key, part in sub[group].items():
            if part["cases"]:
                lines.append(template.format(name=name, key=key, cases=part["cases"], w15=part["within_15_share"],
                                             median=part["median_abs_error"]))
    return lines


def _speed_accuracy():
    """(rows, summary) of the speed models on the bundled measured runs (:mod:`gpudesk.sizing.speed_validation`)."""
    from gpudesk.sizing import SizingError
    from gpudesk.sizing.speed_validation import evaluate_speed, summarize_speed

    try:
        results = evaluate_speed()
    except SizingError as exc:
        raise CliError(_("speed cases: {error}").format(error=exc)) from exc
    return results, summarize_speed(results)


def _workload_line(args: argparse.Namespace, inference: bool) -> str:
    """The estimate's workload in one line (mode, precision, tokens, batch, GPUs), one sentence per case."""
    if inference:
        return _("mode {mode}, context {seq}, concurrency {batch}").format(mode=args.mode, seq=args.seq,
                                                                          batch=args.batch)
    if args.gpus > 1:
        return _("mode {mode}, {precision}, {optimizer}, sequence {seq}, micro-batch {batch}, {gpus} GPUs "
                 "{sharding}").format(mode=args.mode, precision=args.precision, optimizer=args.optimizer,
                                      seq=args.seq, batch=args.batch, gpus=args.gpus, sharding=args.sharding)
    return _("mode {mode}, {precision}, {optimizer}, sequence {seq}, micro-batch {batch}").format(
        mode=args.mode, precision=args.precision, optimizer=args.optimizer, seq=args.seq, batch=args.batch)


def cmd_estimate_memory(args: argparse.Namespace) -> int:
    from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory
    from gpudesk.sizing.capacity import gpu_fit

    if args.params is not None:
        _check_params_text(args.params)
    for option, count in (("--grad-accum", args.grad_accum), ("--kv-block-tokens", args.kv_block_tokens)):
        if count < 1:  # 0 ran as 1 step / as a contiguous (unpaged) cache
            raise CliError(_("{flag} must be a whole number of at least 1, not {value}.").format(
                flag=option, value=count))
    spec = _spec(args)
    inference = args.mode == "inference"
    model_parallel = max(1, args.tp) * max(1, args.pp) * max(1, args.cp)
    if args.gpus is None:  # the fewest GPUs the tensor x pipeline x context split runs on
        args.gpus = model_parallel
    elif inference and 0 < args.gpus < model_parallel:  # training's own check names the degree that does not fit
        raise CliError(_("--gpus: {gpus} GPUs cannot hold the split of --tp {tp} x --pp {pp} = {need} GPUs; give "
                         "--gpus {need} or more, or leave --gpus out.").format(
                             gpus=args.gpus, tp=max(1, args.tp), pp=max(1, args.pp), need=model_parallel))
    if args.longest_sample_tokens is not None and inference:
        raise CliError(_("--longest-sample-tokens applies to training; for inference give the context with --seq."))
    if args.prompt_tokens is not None and not inference:
        raise CliError(_("--prompt-tokens applies to --mode inference; training takes its tokens from --seq."))
    if args.weight_format is not None and args.mode == "qlora":
        raise CliError(_("--weight-format applies to --mode inference; --mode qlora already holds its frozen base in "
                         "4-bit NF4 (bitsandbytes) and trains at --precision, so leave --weight-format out."))
    if args.weight_format is not None and not inference:
        raise CliError(_("--weight-format applies to --mode inference; {mode} keeps the weights at --precision "
                         "(for a 4-bit frozen base use --mode qlora).").format(mode=args.mode))
    _check_zero3_flags(args)
    for option, value in (("--zero3-max-reuse-distance", args.zero3_max_reuse_distance),
                          ("--zero3-max-live-params", args.zero3_max_live_params)):
        if value is None:  # "auto" is a fill of the bucket sizes only
            raise CliError(_("{flag} has no auto value; give a number of elements such as 1e9 (DeepSpeed's default)."
                             ).format(flag=option))
    if args.recompute is None:
        # PEFT prepare_model_for_kbit_training defaults to use_gradient_checkpointing=True (peft utils/other.py).
        args.recompute = "full" if args.mode == "qlora" else "none"
    workload = MemoryWorkload(
        mode=args.mode, precision=args.precision, optimizer=args.optimizer, seq_len_tokens=args.seq,
        micro_batch_size=args.batch, gpus=args.gpus, sharding=args.sharding, offload=args.offload,
        recompute=args.recompute, flash_attention=not args.no_flash, tensor_parallel=args.tp,
        lora_rank=args.lora_rank, lora_targets=tuple(t.strip() for t in args.lora_targets.split(",") if t.strip()),
        weight_format=args.weight_format or "checkpoint", kv_precision=args.kv_precision, context_tokens=args.seq,
        concurrent_sequences=args.batch, activation_bytes_per_sample=args.activation_bytes_per_sample,
        sequence_parallel=args.sp, sp_gathered_inputs=args.sp_gathered_inputs, context_parallel=args.cp, loss=args.loss,
        loss_vocab_chunk=args.loss_vocab_chunk,
        optimizer_in_backward=args.optimizer_in_backward, activation_offload=args.activation_offload,
        compiled=args.compile, gradient_accumulation=args.grad_accum > 1, fsdp_version=args.fsdp_version,
        optimizer_impl=args.optimizer_impl, zero_grad_keeps_grads=args.zero_grad_keeps_grads,
        cuda_lazy_loading=args.cuda_lazy_loading == "on",
        driver_reserved_mib=args.driver_reserved_mib,
        cuda_major_version=args.cuda_major_version, kv_cache_impl=args.kv_cache_impl,
        mla_decode_weights=args.mla_decode_weights, paged_block_tokens=args.kv_block_tokens, kbit_fp32_upcast=args.kbit_fp32_upcast,
        kbit_embeddings_bf16=args.kbit_embeddings_bf16,
        fsdp1_mixed_flat_params=args.fsdp1_mixed_flat_params, lora_dropout=args.lora_dropout,
        legacy_bnb_matmul=args.legacy_bnb_matmul, nonreentrant_checkpoint=args.non_reentrant_checkpoint,
        lora_kernels=args.lora_kernels, weight_loading=args.weight_loading,
        double_quant=not args.no_double_quant, pipeline_parallel=args.pp, pipeline_schedule=args.pp_schedule,
        pipeline_microbatches=args.pp_microbatches, pipeline_stages_per_rank=args.pp_stages_per_rank,
        global_batch_size=args.global_batch,
        longest_sample_tokens=args.longest_sample_tokens, prompt_tokens=args.prompt_tokens,
        prompt_logits=args.prompt_logits, fsdp1_no_sync=not args.fsdp1_sync_each_batch, fsdp2_no_sync=args.fsdp2_no_sync, tp_whole_logits=args.tp_whole_logits,
        decoder_seq_len_tokens=args.decoder_seq_len_tokens,
        tp_replicated_embedding=args.tp_replicated_embedding,
        ddp_bucket_view=args.ddp_bucket_view, fp32_grad_buffer=args.fp32_grad_buffer, main_grads_kept=args.main_grads_kept,
        unfused_gelu=args.unfused_gelu,
        fused_norm=args.fused_norm, eager_softmax=args.eager_softmax, encoder_lm_head=args.encoder_lm_head,
        grouped_kv_attention=args.grouped_kv_attention,
        fsdp_root_only=args.fsdp_root_only, fsdp1_limit_all_gathers=not args.fsdp1_no_rate_limiter,
        fused_qkv_load=args.fused_qkv_load, tp_replicated_vocab=args.tp_replicated_vocab,
        prefill_kv_kept=args.prefill_kv_kept, gptq_kernel=args.gptq_kernel, max_input_tokens=args.max_input_tokens,
        decode_attention=args.decode_attention, load_dtype=args.load_dtype,
        embeddings_on_host=args.embeddings_on_host, base_weights=args.base_weights,
        modules_to_save=_modules_to_save(args.modules_to_save),
        no_kv_cache=args.no_kv_cache, bnb_fp32_compute=args.bnb_fp32_compute,
        eval_batch=args.eval_batch, eval_kv_cache=not args.eval_no_cache, eval_loss=args.eval_loss,
        zero3_max_reuse_distance=args.zero3_max_reuse_distance, zero3_max_live_parameters=args.zero3_max_live_params,
        zero3_prefetch_bucket=args.zero3_prefetch_bucket,
        zero3_persistence_threshold=args.zero3_persistence_threshold, zero3_reduce_bucket=args.zero3_reduce_bucket,
        zero3_defaults=args.zero3_defaults, zero3_outside_init=args.zero3_outside_init,
        zero2_reduce_bucket=args.zero2_reduce_bucket, recompute_layers=args.recompute_layers,
        expert_parallel=args.expert_parallel, expert_tensor_parallel=args.expert_tensor_parallel,
    )
    try:
        est = estimate_memory(spec, workload)
    except SizingError as exc:
        flag = {"seq_len_tokens": "--seq", "context_tokens": "--seq", "micro_batch_size": "--batch",
                "concurrent_sequences": "--batch", "gpus": "--gpus", "tensor_parallel": "--tp", "lora_rank": "--lora-rank",
                "lora_targets": "--lora-targets", "weight_format": "--weight-format", "kv_precision": "--kv-precision",
                "activation_bytes_per_sample": "--activation-bytes-per-sample", "precision": "--precision",
                "optimizer": "--optimizer", "context_parallel": "--cp", "loss": "--loss", "loss_vocab_chunk": "--loss-vocab-chunk", "sharding": "--sharding",
                "offload": "--offload", "fsdp_version": "--fsdp-version", "optimizer_impl": "--optimizer-impl",
                "kv_cache_impl": "--kv-cache-impl", "paged_block_tokens": "--kv-block-tokens",
                "mla_decode_weights": "--mla-decode-weights",
                "fsdp1_mixed_flat_params": "--fsdp1-mixed-flat-params",
                "kbit_embeddings_bf16": "--kbit-embeddings-bf16", "lora_dropout": "--lora-dropout",
                "lora_kernels": "--lora-kernels", "pipeline_parallel": "--pp", "pipeline_schedule": "--pp-schedule",
                "pipeline_microbatches": "--pp-microbatches", "pipeline_stages_per_rank": "--pp-stages-per-rank",
                "global_batch_size": "--global-batch",
                "longest_sample_tokens": "--longest-sample-tokens", "decoder_seq_len_tokens": "--decoder-seq",
                "prompt_tokens": "--prompt-tokens",
                "prompt_logits": "--prompt-logits", "recompute": "--recompute", "compiled": "--compile",
                "optimizer_in_backward": "--optimizer-in-backward", "activation_offload": "--activation-offload",
                "zero_grad_keeps_grads": "--zero-grad-keeps-grads", "weight_loading": "--weight-loading",
                "sequence_parallel": "--sp", "sp_gathered_inputs": "--sp-gathered-inputs",
                "fsdp1_no_sync": "--fsdp1-sync-each-batch", "fsdp2_no_sync": "--fsdp2-no-sync", "tp_whole_logits": "--tp-whole-logits",
                "tp_replicated_embedding": "--tp-replicated-embedding", "ddp_bucket_view": "--ddp-bucket-view",
                "fp32_grad_buffer": "--fp32-grad-buffer", "main_grads_kept": "--main-grads-kept",
                "unfused_gelu": "--unfused-gelu", "fused_norm": "--fused-norm", "grouped_kv_attention": "--grouped-kv-attention",
                "eager_softmax": "--eager-softmax", "fsdp_root_only": "--fsdp-root-only",
                "fsdp1_limit_all_gathers": "--fsdp1-no-rate-limiter",
                "encoder_lm_head": "--encoder-lm-head",
                "kbit_fp32_upcast": "--kbit-fp32-upcast", "legacy_bnb_matmul": "--legacy-bnb-matmul",
                "nonreentrant_checkpoint": "--non-reentrant-checkpoint",
                "double_quant": "--no-double-quant", "fused_qkv_load": "--fused-qkv-load",
                "prefill_kv_kept": "--prefill-kv-kept", "gptq_kernel": "--gptq-kernel",
                "max_input_tokens": "--max-input-tokens", "decode_attention": "--decode-attention",
                "load_dtype": "--load-dtype",
                "tp_replicated_vocab": "--tp-replicated-vocab", "embeddings_on_host": "--embeddings-on-host",
                "base_weights": "--base-weights", "modules_to_save": "--modules-to-save",
                "no_kv_cache": "--no-kv-cache",
                "eval_batch": "--eval-batch", "eval_kv_cache": "--eval-no-cache", "eval_loss": "--eval-loss",
                "bnb_fp32_compute": "--bnb-fp32-compute",
                "zero3_max_reuse_distance": "--zero3-max-reuse-distance",
                "zero3_max_live_parameters": "--zero3-max-live-params",
                "zero3_prefetch_bucket": "--zero3-prefetch-bucket",
                "zero3_persistence_threshold": "--zero3-persistence-threshold",
                "zero3_reduce_bucket": "--zero3-reduce-bucket", "zero3_defaults": "--zero3-defaults",
                "zero3_outside_init": "--zero3-outside-init", "zero2_reduce_bucket": "--zero2-reduce-bucket",
                "recompute_layers": "--recompute-layers", "expert_parallel": "--expert-parallel",
                "expert_tensor_parallel": "--expert-tensor-parallel",
                "cuda_major_version": "--cuda-major-version", "driver_reserved_mib": "--driver-reserved-mib"}
        raise CliError(_("{flag}: {problem}").format(flag=flag.get(str(exc.field), str(exc.field)),
                                                  problem=exc.reason)) from exc
    verdict = None
    if args.gpu is None and args.safe_free is not None:
        raise CliError(_("--safe-free applies to the fit on a GPU: add --gpu NAME."))
    if args.gpu is not None and not args.gpu.strip():
        raise CliError(_("{flag}: the value is empty; give a catalog GPU id such as h100-sxm5.").format(flag="--gpu"))
    if args.gpu:
        from gpudesk.catalog import AmbiguousItemError, UnknownItemError
        from gpudesk.sizing.capacity import DEFAULT_SAFE_FREE_FRACTION
        from gpudesk.planner.packages import device_of

        try:
            gpu = device_of(_catalog().find_gpu(args.gpu))  # a two-die package fits per die (MI250X, 910C)
        except AmbiguousItemError as exc:
            raise CliError(_("--gpu {gpu!r} matches several GPUs: {ids}").format(
                gpu=args.gpu, ids=", ".join(g.id for g in exc.matches))) from exc
        except UnknownItemError as exc:
            raise CliError(_("{flag}: {problem}").format(flag=f"--gpu {args.gpu!r}", problem=exc.user_text())) from exc
        try:
            # The need on the card, as the planner fits it (MemoryEstimate.device_need_bytes).
            verdict = (gpu, gpu_fit(est.device_need_bytes, gpu,
                                      DEFAULT_SAFE_FREE_FRACTION if args.safe_free is None else args.safe_free))
        except SizingError as exc:
            raise CliError(_("{flag}: {problem}").format(flag="--safe-free", problem=exc.reason)) from exc
    from gpudesk.planner.memory_parts import memory_part_label
    from gpudesk.sizing.error_band import bundled_error_band

    band = bundled_error_band(args.mode, args.gpus, args.framework)
    if args.json:
        out = {"model": {"name": spec.name, "params": spec.params, "shape_is_guess": spec.shape_is_guess, "source": spec.source},
               "mode": args.mode, "per_gpu": est.to_dict(), "error_band": band.to_dict() if band else None}
        if verdict:
            gpu, f = verdict
            out["gpu"] = {"gpu_id": gpu.id, "usable_memory_bytes": f.usable_bytes, "safe_line_bytes": f.safe_line_bytes,
                          "headroom_to_safe_line_bytes": f.headroom_bytes, "fits_usable": f.fits, "under_safe_line": f.under_safe_line}
        _emit(dumps_json(out, indent=2), None)
        return 0
    bytes_head = _("bytes")
    bytes_head = " " * max(0, 18 - display_width(bytes_head)) + bytes_head
    lines = [(_("{model}: {params:,} parameters (shape guessed from the count)") if spec.shape_is_guess
              else _("{model}: {params:,} parameters")).format(model=spec.name, params=spec.params),
             _workload_line(args, inference), "", ljust_display(_("component"), 28) + f"{'GiB':>10}" + bytes_head]
    for name, value in est.breakdown.items():  # the parts named as the window's legend and the sheet name them
        lines.append(f"{ljust_display(memory_part_label(name), 28)}{value / GIB:>10.2f}{value:>18,}")
    total_label = _("total per GPU")
    lines.append(f"{ljust_display(total_label, 28)}{est.total_bytes / GIB:>10.2f}{est.total_bytes:>18,}")
    if est.experts:  # the expert split, named by the estimate itself (MemoryEstimate.experts)
        lines += ["", est.experts.headline(), "  " + est.experts.detail()]
    lines.append("")
    for label, value in ((_("allocated (max_memory_allocated)"), est.allocated_bytes),
                         (_("reserved (max_memory_reserved)"), est.reserved_bytes),
                         (_("device (NVML v1 used)") if est.component("driver_reserved")
                          else _("device (nvidia-smi)"), est.device_bytes)):
        lines.append(f"{ljust_display(label, 36)}{value / GIB:>8.2f} GiB")
    summed, gpu_count = est.allocated_sum_bytes, len(est.gpu_allocated_bytes) or est.gpus
    if summed is not None and gpu_count > 1:
        label = _("allocated, summed over {n} GPUs").format(n=gpu_count)
        lines.append(f"{ljust_display(label, 36)}{summed / GIB:>8.2f} GiB")
    if est.paged_bytes:
        lines.append(_("paged optimizer states {gib:.2f} GiB are CUDA unified memory: outside the allocator figures; when "
                       "the GPU runs short the driver moves them to host RAM (slower steps, no out-of-memory error)")
                     .format(gib=est.paged_bytes / GIB))
    if band:
        lines.append(band.text())
    if verdict:
        gpu, f = verdict
        state = (_("under the safe line") if f.under_safe_line
                 else _("over the safe line") if f.fits else _("does NOT fit"))
        lines += ["", _("{gpu}: {usable_gib:.2f} GiB usable, safe line {safe_gib:.2f} GiB: {state} ({headroom_gib:+.2f} "
                        "GiB headroom)").format(gpu=gpu.name, usable_gib=f.usable_bytes / GIB,
                                                safe_gib=f.safe_line_bytes / GIB, state=state,
                                                headroom_gib=f.headroom_bytes / GIB)]
        if est.device_need_bytes != est.total_bytes:  # the plan's "memory per GPU" for this job
            lines.append(_("needed on the card: {gib:.2f} GiB per GPU, the figure the headroom is measured from")
                         .format(gib=est.device_need_bytes / GIB))
        if est.component("driver_reserved"):
            lines.append(_("the driver-reserved {mib} MiB is already outside the usable figure: the headroom leaves it "
                           "out").format(mib=est.component("driver_reserved") // MIB))
    lines += ["", _("assumptions:")] + [f"  - {a} [{s}]" for a, s in est.assumptions]
    _emit("\n".join(lines), None)
    return 0
