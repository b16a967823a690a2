"""The OOM doctor tab: pick a target (GPU process, command to launch, pasted or dropped text), collect,
and show the ranked causes with their evidence, per-GPU memory bars, the live curve and past diagnoses."""
