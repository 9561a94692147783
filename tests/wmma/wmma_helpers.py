"""Test-side memory model and element codecs, written independently of ptxld.wmma: elements are
read and written one at a time through Python integers at bit offsets."""
import ml_dtypes
import numpy as np

from ptxld.spec import wmma as spec


class Fault(Exception):
    """Stands in for the emulator's own fault type."""


class Memory:
    def __init__(self, size: int, seed: int = 0, fill: str = "random"):
        rng = np.random.default_rng(seed)
        self.buf = (rng.integers(0, 256, size, dtype=np.uint8) if fill == "random"
                    else np.zeros(size, np.uint8))
        self.calls = 0

    def read(self, addrs, nbytes):
        self.calls += 1
        addrs = np.asarray(addrs)
        assert addrs.dtype == np.int64
        if (addrs < 0).any() or (addrs + nbytes > len(self.buf)).any():
            raise Fault("out of bounds")
        return np.stack([self.buf[a:a + nbytes] for a in addrs])

    def write(self, addrs, data):
        assert data.dtype == np.uint8 and len(addrs) == len(data)
        for a, d in zip(addrs, data):
            if a < 0 or a + len(d) > len(self.buf):
                raise Fault("out of bounds")
            self.buf[a:a + len(d)] = d

    def get_bits(self, bit_offset: int, bits: int) -> int:
        first, last = bit_offset // 8, (bit_offset + bits - 1) // 8
        word = int.from_bytes(self.buf[first:last + 1].tobytes(), "little")
        return (word >> (bit_offset % 8)) & ((1 << bits) - 1)

    def put_bits(self, bit_offset: int, bits: int, value: int) -> None:
        first, last = bit_offset // 8, (bit_offset + bits - 1) // 8
        word = int.from_bytes(self.buf[first:last + 1].tobytes(), "little")
        shift, mask = bit_offset % 8, ((1 << bits) - 1) << (bit_offset % 8)
        word = (word & ~mask) | ((int(value) << shift) & mask)
        self.buf[first:last + 1] = np.frombuffer(word.to_bytes(last - first + 1, "little"),
                                                 np.uint8)


def element_bit_offset(base, r, c, layout, stride, bits):
    index = r * stride + c if layout == "row" else c * stride + r
    return base * 8 + index * bits


def extent_bytes(fs, layout, stride):
    """Bytes from p to the end of the stored matrix."""
    rows, cols = fs.dims
    nlines, line = (rows, cols) if layout == "row" else (cols, rows)
    return ((nlines - 1) * stride + line) * fs.element_bits // 8


def to_bits(values, type_):
    """Numbers → element bit patterns (Python ints)."""
    v = np.asarray(values)
    if type_ == "f16":
        b = v.astype(np.float16).view(np.uint16)
    elif type_ == "bf16":
        b = v.astype(ml_dtypes.bfloat16).view(np.uint16)
    elif type_ in ("f32", "tf32"):
        b = v.astype(np.float32).view(np.uint32)
    elif type_ == "f64":
        b = v.astype(np.float64).view(np.uint64)
    else:
        bits = spec.ELEMENT_BITS[type_]
        b = v.astype(np.int64) & ((1 << bits) - 1)
    return b.astype(np.uint64)


def from_bits(bits, type_):
    b = np.asarray(bits, dtype=np.uint64)
    if type_ == "f16":
        return b.astype(np.uint16).view(np.float16).astype(np.float64)
    if type_ == "f32":
        return b.astype(np.uint32).view(np.float32).astype(np.float64)
    if type_ == "f64":
        return b.view(np.float64)
    if type_ == "s32":
        return b.astype(np.uint32).view(np.int32).astype(np.int64)
    raise ValueError(type_)


def put_matrix(mem, base, values_bits, layout, stride, bits):
    rows, cols = values_bits.shape
    for r in range(rows):
        for c in range(cols):
            mem.put_bits(element_bit_offset(base, r, c, layout, stride, bits), bits,
                         int(values_bits[r, c]))


def get_matrix(mem, base, shape, layout, stride, bits):
    out = np.zeros(shape, np.uint64)
    for r in range(shape[0]):
        for c in range(shape[1]):
            out[r, c] = mem.get_bits(element_bit_offset(base, r, c, layout, stride, bits), bits)
    return out
