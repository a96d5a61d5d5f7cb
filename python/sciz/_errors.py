"""sciz's exceptions: one base class, one subclass per kind of failure.

Bad input (arguments, streams) derives from ValueError as well, failures of the machine
(CUDA, memory, a missing GPU) from RuntimeError, so ``except ValueError`` keeps working for
code that does not know sciz. The message is sciz's one-line message, naming the value.
"""

from __future__ import annotations


class Error(Exception):
    """Base class of every error sciz raises. ``status`` names the kind."""

    status = "error"


class InvalidArgument(Error, ValueError):
    """Bad dims, bound, dtype, pipeline, option or size mismatch."""

    status = "invalid_argument"


class CorruptStream(Error, ValueError):
    """A stream that is damaged or truncated: bad magic, checksum, lengths or offsets."""

    status = "corrupt_stream"


class Unsupported(Error, ValueError):
    """A format version or pipeline parameters this sciz cannot decode."""

    status = "unsupported"


class BufferTooSmall(Error, ValueError):
    """An output buffer that is too small; ``needed_bytes`` is the size it needs."""

    status = "buffer_too_small"
    needed_bytes = 0


class IOFailure(Error, OSError):
    """A file could not be read or written."""

    status = "io_error"


class CudaError(Error, RuntimeError):
    """A CUDA call failed (out of device memory included)."""

    status = "cuda_error"


class NoDevice(Error, RuntimeError):
    """CUDA was asked for, but there is no usable GPU or sciz was built without CUDA."""

    status = "no_device"


class InternalError(Error, RuntimeError):
    """An invariant of sciz broke: a bug, reported rather than hidden."""

    status = "internal"


# Index = sciz::Status (include/sciz/error.hpp); 0 is "ok" and never raised.
BY_STATUS = [Error, InvalidArgument, CorruptStream, Unsupported, IOFailure, CudaError, NoDevice,
             InternalError, BufferTooSmall]

for _cls in BY_STATUS:
    _cls.__module__ = "sciz"  # shown as sciz.InvalidArgument, where users import it from
