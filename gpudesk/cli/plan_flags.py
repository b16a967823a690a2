"""``gpudesk plan`` by flags: the common answers of a requirement without writing a TOML profile.

``gpudesk plan --model Qwen/Qwen2.5-14B-Instruct --mode lora --tokens 2e8 --deadline 7d --budget 60000`` or
``gpudesk plan --model llama-3.1-70b --qps 20 --prompt-tokens 1024 --output-tokens 256``. Each flag sets one
profile key (docs/profile.md, ``gpudesk plan --help-profile``); with ``--profile`` the flags override the file's
answers. ``--qps`` without ``--mode`` plans a service (mode inference). The requirement is then read and checked
exactly as a profile is (gpudesk.planner.profile).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from gpudesk.cli import CliError
from gpudesk.i18n import _

#: flag dest -> (section, key) of the profile.
FLAG_KEYS: dict[str, tuple[str, str]] = {
    "model": ("model", "model"),
    "mode": ("model", "mode"),
    "seq": ("model", "seq_len_tokens"),
    "micro_batch": ("model", "micro_batch_size"),
    "global_batch": ("model", "global_batch_size"),
    "tokens": ("workload", "tokens_to_train"),
    "deadline": ("workload", "deadline_s"),
    "qps": ("workload", "target_qps"),
    "prompt_tokens": ("workload", "prompt_tokens"),
    "output_tokens": ("workload", "output_tokens"),
    "budget": ("operations", "budget_usd"),
    "max_gpus": ("operations", "max_gpus"),
    "market": ("operations", "market"),
    "expert_parallel": ("model", "expert_parallel"),
    "recompute_layers": ("model", "recompute_layers"),
}

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([dhm]?)\s*$", re.IGNORECASE)
_COUNT = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([kmbt]?)\s*$", re.IGNORECASE)


def duration_s(text: str) -> float:
    """A deadline: ``7d``, ``36h``, ``90m`` or a number of days (``7``); seconds."""
    found = _DURATION.match(text)
    if not found:
        raise argparse.ArgumentTypeError(_("{text!r} is not a duration; write e.g. 7d, 36h or 90m.").format(text=text))
    value, unit = float(found.group(1)), (found.group(2) or "d").lower()
    return value * {"d": 86400.0, "h": 3600.0, "m": 60.0}[unit]


def count(text: str) -> float:
    """A count with an optional k/M/B/T suffix (``2e8``, ``200M``, ``1.5B``)."""
    found = _COUNT.match(text)
    if not found:
        raise argparse.ArgumentTypeError(_("{text!r} is not a count; write e.g. 2e8, 200M or 1.5B.").format(text=text))
    scale = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}[found.group(2).lower()]
    return float(found.group(1)) * scale


def add_requirement_flags(parser: argparse.ArgumentParser) -> None:
    """The requirement flags of ``gpudesk plan`` (each sets one profile key)."""
    g = parser.add_argument_group(_("requirement by flags (override the profile's answers; see --help-profile)"))
    g.add_argument("--model", metavar="NAME", help=_("catalog model id or name, or a Hugging Face repo id (fine-tuned "
                                                     "variants such as -Instruct use their base model's shape)"))
    g.add_argument("--mode", choices=("train", "lora", "qlora", "inference"),
                   help=_("train, lora, qlora or inference (default: inference with --qps, else train)"))
    g.add_argument("--tokens", type=count, metavar="N", help=_("tokens to train, e.g. 2e8 or 200M"))
    g.add_argument("--deadline", type=duration_s, metavar="TIME", help=_("time to result wanted, e.g. 7d or 36h"))
    g.add_argument("--qps", type=float, metavar="REQ/S", help=_("requests per second the service must sustain"))
    g.add_argument("--prompt-tokens", type=int, metavar="N", help=_("prompt length of a request (serving)"))
    g.add_argument("--output-tokens", type=int, metavar="N", help=_("output length of a request (serving)"))
    g.add_argument("--budget", type=float, metavar="USD", help=_("purchase budget in US dollars"))
    g.add_argument("--max-gpus", type=int, metavar="N", help=_("largest GPU count to consider"))
    g.add_argument("--seq", type=int, metavar="TOKENS", help=_("sequence length"))
    g.add_argument("--micro-batch", type=int, metavar="N", help=_("micro-batch per GPU"))
    g.add_argument("--global-batch", type=int, metavar="N", help=_("global batch (kept when the micro-batch is cut)"))
    g.add_argument("--market", choices=("global", "china"),
                   help=_("where the GPUs are bought: global keeps out China-market SKUs (default global)"))
    # The same settings as `gpudesk estimate memory --expert-parallel / --recompute-layers` (profile keys
    # model.expert_parallel, model.recompute_layers).
    g.add_argument("--expert-parallel", type=int, metavar="N",
                   help=_("MoE full training or LoRA: spread the routed experts over N GPUs (each holds experts / N); "
                          "the plan then uses multiples of N GPUs (Megatron-LM --expert-model-parallel-size)"))
    g.add_argument("--recompute-layers", type=int, metavar="K",
                   help=_("with full recompute in full training: recompute only K layers (1 to the model's layers); "
                          "the others keep every activation (Megatron-LM --recompute-num-layers)"))
    parser.add_argument("--help-profile", action="store_true",
                        help=_("print every profile section and key with its default, and exit"))


def flags_given(args: argparse.Namespace) -> dict[str, Any]:
    """The requirement flags the user gave, by dest."""
    return {dest: getattr(args, dest) for dest in FLAG_KEYS if getattr(args, dest, None) is not None}


def profile_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The profile dictionary: the ``--profile`` file's tables (if any) with the flags on top."""
    from gpudesk.planner.profile import parse_profile_text

    data: dict[str, Any] = {}
    if args.profile:
        path = Path(args.profile)
        try:
            data = parse_profile_text(path.read_text(encoding="utf-8"), str(path))
        except OSError as exc:
            raise CliError(_("profile {path}: cannot read it: {error}").format(path=path, error=exc.strerror or exc)) from exc
        except UnicodeDecodeError as exc:
            raise CliError(_("profile {path}: it is not UTF-8 text").format(path=path)) from exc
        config = (data.get("model") or {}).get("config_path") if isinstance(data.get("model"), dict) else None
        if config and not Path(config).is_absolute():
            data["model"]["config_path"] = str((path.parent / config).resolve())
    given = flags_given(args)
    if "qps" in given and "mode" not in given and not (data.get("model") or {}).get("mode"):
        given["mode"] = "inference"
    for dest, value in given.items():
        section, key = FLAG_KEYS[dest]
        if key in ("tokens_to_train",) or (isinstance(value, float) and key.endswith(("_size", "_tokens"))):
            value = int(value) if key != "tokens_to_train" else float(value)
        data.setdefault(section, {})[key] = value
    if not data.get("name"):
        data["name"] = _("Plan for {model}").format(model=given.get("model") or "?") if given else "Untitled plan"
    return data
