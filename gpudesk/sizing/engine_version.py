"""The release number in a published engine version string, read once for every engine rule.

Engines publish versions in several shapes: ``0.6.5.dev964+mlperf50`` (vLLM's setuptools-scm build), ``v0.5.7`` (a
git tag), ``0.4.3.post2`` (a PEP 440 post-release), ``vLLM 0.9.0.2.dev108+g71faa1880 (ROCm 6.4.1)`` (a start-up log
line) or ``TensorRT-LLM 0.20.0``. The first ``major.minor[.patch]`` in the string is the release (PEP 440, "Version
scheme": https://peps.python.org/pep-0440/#public-version-identifiers); anything after it (dev, post, local labels)
does not change which defaults the release ships.
"""

from __future__ import annotations

import re

_RELEASE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def version_triple(version: str | None) -> tuple[int, int, int] | None:
    """(major, minor, patch) of the first release number in ``version`` (``0.6.5.dev964+mlperf50`` -> (0, 6, 5),
    ``v0.5.7`` -> (0, 5, 7), ``0.7`` -> (0, 7, 0)); None when ``version`` is absent, blank or has no ``major.minor``
    (a caller that needs one reports that: :func:`gpudesk.sizing.serve_host.engine_version_tuple`)."""
    match = _RELEASE.search(str(version)) if version is not None and str(version).strip() else None
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)
