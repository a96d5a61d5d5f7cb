"""sciz: error-bounded lossy compression of float32/float64 arrays on GPUs and CPUs.

    >>> import numpy as np, sciz
    >>> x = np.random.default_rng(0).standard_normal((100, 200)).astype(np.float32)
    >>> stream = sciz.compress(x, rel=1e-3)          # bytes; every point within 1e-3 x range
    >>> y = sciz.decompress(stream)                  # numpy array, same dtype and shape
    >>> bool(np.all(np.abs(x - y) <= sciz.info(stream)["eb_abs"]))
    True

CuPy arrays and PyTorch CUDA tensors (any DLPack or __cuda_array_interface__ producer) are
compressed on their GPU, on their current stream. Codecs for Zarr v3 (sciz.zarr.Sciz),
numcodecs (sciz.numcodecs.Sciz) and HDF5 (sciz.h5.filter) are in submodules. Progressive
retrieval (mdr): sciz.refactor(x) once, then sciz.Retriever(file).retrieve(rel=...) at any bound.
"""

from __future__ import annotations

from . import _core
from ._errors import (
    BY_STATUS as _BY_STATUS,
    BufferTooSmall,
    CorruptStream,
    CudaError,
    Error,
    InternalError,
    InvalidArgument,
    IOFailure,
    NoDevice,
    Unsupported,
)

_core._set_error_classes(list(_BY_STATUS))

from ._api import (  # noqa: E402
    compress,
    compress_on_device,
    cuda_available,
    decompress,
    info,
    pipelines,
    release_cached_memory,
)
from ._arrays import CopyWarning  # noqa: E402
from ._mdr import Retriever, refactor, retrieve  # noqa: E402

__version__: str = _core.__version__
FORMAT_VERSION: int = _core.format_version
CUDA_BUILT: bool = _core.cuda_built

__all__ = [
    "BufferTooSmall",
    "CUDA_BUILT",
    "CopyWarning",
    "CorruptStream",
    "CudaError",
    "Error",
    "FORMAT_VERSION",
    "IOFailure",
    "InternalError",
    "InvalidArgument",
    "NoDevice",
    "Retriever",
    "Unsupported",
    "compress",
    "compress_on_device",
    "cuda_available",
    "decompress",
    "info",
    "pipelines",
    "refactor",
    "release_cached_memory",
    "retrieve",
]
