"""mdr: refactor an array once, retrieve it later at any bound (docs/MDR.md).

    >>> import numpy as np, sciz
    >>> x = np.random.default_rng(0).standard_normal((40, 60)).astype(np.float32)
    >>> f = sciz.refactor(x)                       # bytes: every segment, an index at the head
    >>> r = sciz.Retriever(f)
    >>> y = r.retrieve(rel=1e-2)                   # reads only the prefix that bound needs
    >>> bool(np.all(np.abs(x - y) <= r.last["bound"]))
    True
    >>> z = r.retrieve(rel=1e-5)                   # refines: reads only what it lacked
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _arrays, _core, _options
from ._errors import InvalidArgument


def refactor(array: Any, *, planes_per_group: int = 1, device: str = "auto") -> bytes:
    """Refactors a float32/float64 array of 1 to 4 dimensions into an mdr file (bytes).

    Args:
        array: a numpy array (or anything numpy can view).
        planes_per_group: bitplanes per segment, 1..32 (float32) or 1..52 (float64): fewer
            give a finer choice of what to read.
        device: "auto" (the GPU for a CUDA array, the CPU for a host array), "cpu" or "cuda"
            (a build with CUDA); the file is the same.

    Returns:
        The file: a :class:`Retriever` reads any bound from it.
    """
    from ._api import _field  # the same checks of dtype and dimensions as compress

    if isinstance(planes_per_group, bool) or not isinstance(planes_per_group, int) or planes_per_group < 1:
        raise InvalidArgument(f"planes_per_group must be an integer >= 1, got {planes_per_group!r}")
    f = _field(array)
    return _core.mdr_refactor(f.ptr, f.device, f.dtype, list(f.shape), planes_per_group, _options.device(device))


class Retriever:
    """Retrievals from an mdr file held in memory: each :meth:`retrieve` reads only the
    segments its bound needs beyond those already read, and reconstructs the whole array.

    Args:
        data: the file's bytes (:func:`refactor`'s result, or read from disk).
        state: :meth:`state` of an earlier Retriever on the same file, to continue from what
            it had read (checked against the file).
    """

    def __init__(self, data: Any, *, state: bytes | None = None) -> None:
        s = _arrays.stream_bytes(data)
        if s.on_device:
            raise InvalidArgument("an mdr file is read from host memory (bytes-like)")
        st = None if state is None else _arrays.stream_bytes(state)
        self._keep = (s.keep, None if st is None else st.keep)
        self._r = _core.MdrRetriever(s.ptr, s.nbytes, 0 if st is None else st.ptr, 0 if st is None else st.nbytes)
        self._info = self._r.info()
        self.last: dict[str, Any] | None = None
        """What the last retrieve() reported: requested and guaranteed bound, met, segments
        held, bytes read by it and in all."""

    @property
    def info(self) -> dict[str, Any]:
        """dtype, shape, value range, levels, segments, sizes, and the coarsest and finest
        bounds the file can give."""
        return dict(self._info)

    def retrieve(self, *, rel: float | None = None, abs: float | None = None,  # noqa: A002
                 out: Any = None) -> np.ndarray:
        """The array within the bound (relative to the value range, or absolute); every
        finite value within ``self.last["bound"]``, NaN and Inf exactly. A bound below the
        file's finest reads everything and reports ``met`` False.

        Args:
            out: a C-contiguous host array of the file's dtype and element count to fill.
        """
        mode, eb = _options.bound(rel, abs)
        dtype, shape = self._info["dtype"], tuple(self._info["shape"])
        if out is None:
            result = np.empty(shape, dtype=dtype)
        else:
            result = out
        o = _arrays.as_place(result, copy_ok=False)
        count = int(np.prod(shape, dtype=object))
        if o.on_device or o.dtype != dtype or int(np.prod(o.shape, dtype=object)) != count:
            raise InvalidArgument(f"out= must be a host array of {count} {dtype} values (shape {shape})")
        if not o.writable:
            raise InvalidArgument("out= is read-only")
        self.last = self._r.retrieve(mode, eb, o.ptr, count * np.dtype(dtype).itemsize)
        return result

    def plan(self, *, rel: float | None = None, abs: float | None = None) -> dict[str, Any]:  # noqa: A002
        """What a fresh retrieval at this bound would read and guarantee (nothing is read)."""
        mode, eb = _options.bound(rel, abs)
        return self._r.plan(mode, eb)

    def resolve(self, *, rel: float | None = None, abs: float | None = None) -> float:  # noqa: A002
        """The absolute bound a request means for this file."""
        mode, eb = _options.bound(rel, abs)
        return self._r.resolve(mode, eb)

    def state(self) -> bytes:
        """What has been read so far, to continue from later: ``Retriever(data, state=...)``."""
        return self._r.state()

    @property
    def held_bound(self) -> float:
        """The bound of what is held now."""
        return self._r.held_bound()

    @property
    def next_bound(self) -> float:
        """The next smaller bound reading more could reach (the held one once all is read)."""
        return self._r.next_bound()

    @property
    def held_bytes(self) -> int:
        """Header and segment bytes held: what reaching held_bound took."""
        return self._r.held_bytes()


def retrieve(data: Any, *, rel: float | None = None, abs: float | None = None,  # noqa: A002
             out: Any = None) -> np.ndarray:
    """One retrieval from an mdr file's bytes: ``Retriever(data).retrieve(...)``."""
    return Retriever(data).retrieve(rel=rel, abs=abs, out=out)
