"""The words of a garbage request that is not beyond every machine, only beyond the card
(:func:`gpudesk.oom.signatures.absurd_for_device`), where the generic ``absurd_size`` wording ("more than any device or
computer has") would be false (thirty-ninth pass).

* Under the 3D Gaussian-splatting rasterizer: a binning buffer sized from a pair count the kernels never wrote, the
  mark of an extension built for another GPU architecture or CUDA toolkit (sdbds/TRELLIS-for-windows#5: the wheel was
  built for sm_89 only; graphdeco-inria/gaussian-splatting#587: toolkit 12.3). Rebuilding it for the GPU decides.
* Elsewhere, 64 times the card or more: an overflowed or uninitialised size, as the generic wording says, but named
  against the card.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause


def rasterizer_count(cause: Cause) -> Cause:
    """``cause`` (the ``absurd_size`` not-capacity cause) worded for the Gaussian rasterizer's corrupted count."""
    cause.title = _("Not a memory problem: the Gaussian rasterizer asked for a garbage size (an extension built for "
                    "another GPU or CUDA toolkit)")
    cause.explanation = _("The rasterizer sizes its binning buffer from the number of (tile, Gaussian) pairs its CUDA "
                          "kernels count; a 32-bit count cannot ask for this much. When the compiled extension has no "
                          "code for this GPU's architecture, or was built with another CUDA toolkit, the kernels do not "
                          "run and the count is whatever the memory held, so the request is garbage whatever the "
                          "scene's size.")
    cause.fix = _("Rebuild the rasterizer extension (diff-gaussian-rasterization) for this GPU: set "
                  "TORCH_CUDA_ARCH_LIST to its compute capability and reinstall it with the same CUDA toolkit as "
                  "PyTorch (pip install --no-build-isolation --force-reinstall <the extension's folder>)")
    return cause


def beyond_card(cause: Cause) -> Cause:
    """``cause`` (the ``absurd_size`` not-capacity cause) worded for a request 64 times the card or more."""
    cause.explanation = _("The request is 64 times this GPU's memory or more: no layer or batch on this card needs "
                          "that much in one piece. It comes from an overflowed or uninitialised size (a wrong shape, a "
                          "corrupted count from a compiled extension), usually after an earlier error.")
    return cause
