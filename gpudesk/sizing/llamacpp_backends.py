"""llama.cpp's GPU backends: the names a run's ``backend`` may take with engine ``llamacpp``.

ggml, llama.cpp's tensor library, has one backend per GPU API, each a folder of ``ggml/src`` built by its CMake
option (ggml-org/llama.cpp ``docs/build.md``, https://github.com/ggml-org/llama.cpp/blob/master/docs/build.md):
``ggml-cuda`` (``GGML_CUDA``), ``ggml-hip`` (``GGML_HIP``, AMD ROCm; it compiles the CUDA backend's sources with
HIP), ``ggml-metal`` (``GGML_METAL``), ``ggml-sycl`` (``GGML_SYCL``, Intel oneAPI) and ``ggml-vulkan``
(``GGML_VULKAN``). ``rocm`` is taken as ``hip`` (the ROCm toolkit HIP belongs to).

The speed model (:mod:`gpudesk.sizing.serve_llamacpp`) prices every one as the CUDA backend: no published figure
separates them, so the backend is stated as an assumption of the result, not a factor of it.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError

#: ggml's GPU backends (module docstring), by their folder name less ``ggml-``.
LLAMACPP_BACKENDS = ("cuda", "hip", "metal", "sycl", "vulkan")
#: Other spellings a user may type for a backend.
_ALIASES = {"rocm": "hip"}


def llamacpp_backend(backend: str | None) -> str:
    """The backend a llama.cpp run uses: ``backend`` in canonical form (``rocm`` -> ``hip``), else ``cuda``.

    Raises:
        SizingError: a backend that is not one of :data:`LLAMACPP_BACKENDS` (or ``rocm``).
    """
    if backend is None:
        return "cuda"
    name = backend.strip().lower()
    name = _ALIASES.get(name, name)
    if name not in LLAMACPP_BACKENDS:
        raise SizingError("backend", _("{backend!r} is not a llama.cpp GPU backend; use one of {names} (rocm is "
                                       "hip).").format(backend=backend, names=", ".join(LLAMACPP_BACKENDS)))
    return name
