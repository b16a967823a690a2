"""The reference of the requirement profile's fields, generated from the Requirement dataclasses themselves (so
it cannot drift from what ``gpudesk plan --profile`` reads): ``gpudesk plan --help-profile`` prints it and
``docs/profile.md`` is this text (tests/planner/test_cli_plan_flags.py keeps them equal). Qt-free.
"""

from __future__ import annotations

import inspect
from dataclasses import MISSING, fields
from typing import Any

from gpudesk.planner.profile import PROFILE_VERSION
from gpudesk.planner.requirement import SECTIONS
from gpudesk.sizing.lora_base import MODULES_TO_SAVE
from gpudesk.sizing.optimizers import OPTIMIZER_IMPLS, OPTIMIZER_NAMES

#: The question each section answers (the method's five questions, plus the TCO assumptions).
SECTION_QUESTIONS = {
    "data": "1. Data scale and I/O",
    "model": "2. Model complexity and memory pressure",
    "workload": "3. Training or inference, deadline and QPS",
    "software": "4. Software stack and compliance",
    "operations": "5. Operations, growth, budget and market",
    "tco": "Cost assumptions (3-year TCO, electricity, PUE)",
}

#: The names a key accepts, listed under its section's table (the same tuples requirement.validate checks against).
FIELD_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("model", "optimizer"): OPTIMIZER_NAMES,
    ("model", "optimizer_impl"): tuple(OPTIMIZER_IMPLS),
    ("model", "modules_to_save"): tuple(MODULES_TO_SAVE),
}


def _default(field: Any) -> str:
    if field.default is not MISSING:
        value = field.default
    elif field.default_factory is not MISSING:
        value = field.default_factory()
    else:
        return "(required)"
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def profile_reference() -> str:
    """Markdown: every section and key of a profile with its type and default, and the section's description."""
    out = [
        "# Requirement profile (TOML) reference",
        "",
        "A profile is the answers to the five questions of the method, one `[section]` each, read by",
        "`gpudesk plan --profile FILE.toml` and by the Plan tab's Open/Save profile. Sizes are bytes, rates bytes/s,",
        "times seconds, power watts, money US dollars. Keys left out keep the default shown. The command-line flags",
        "of `gpudesk plan` (`--model`, `--mode`, `--tokens`, `--deadline`, `--qps`, `--budget`, `--expert-parallel`,",
        "`--recompute-layers` ...) set the same keys and override the profile's. Generated from",
        "`gpudesk/planner/requirement.py` (`gpudesk plan --help-profile`).",
        "",
        f"Top level: `version = {PROFILE_VERSION}` (the profile format), `name` (text), `notes` (text).",
        "",
        "Example: `resources/examples/article-13b-finetune.toml`.",
        "",
    ]
    for section, cls in SECTIONS.items():
        out += [f"## [{section}] {SECTION_QUESTIONS.get(section, '')}".rstrip(), ""]
        doc = inspect.cleandoc(cls.__doc__ or "")
        if doc:
            out += [doc, ""]
        out += ["| Key | Type | Default |", "| --- | --- | --- |"]
        for f in fields(cls):
            if f.name.isupper():
                continue
            kind = str(f.type).replace("|", "or")
            out.append(f"| `{f.name}` | {kind} | {_default(f).replace('|', 'or')} |")
        out.append("")
        allowed = [(name, names) for (sec, name), names in FIELD_CHOICES.items() if sec == section]
        if allowed:
            out += ["Allowed names:", ""]
            out += [f"- `{name}`: " + ", ".join(f"`{n}`" for n in names) for name, names in allowed]
            out.append("")
    return "\n".join(out)
