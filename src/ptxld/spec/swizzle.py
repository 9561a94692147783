"""Shared-memory swizzle modes as data: the one definition TMA and wgmma descriptors both use.

PTX ISA, "Tensors > Tensor Access Modes > Swizzling Modes" and the wgmma "Matrix Descriptor
Format": shared memory is seen as rows of 128 bytes made of eight 16-byte chunks. A swizzle of
span S bytes (32, 64 or 128) permutes the 16-byte chunks inside each row by XOR with the row
number modulo S/16, so the pattern repeats every S/16 rows (every 256, 512, 1024 bytes). In bit
terms, the swizzle XORs address bits [4, 4+b) with bits [7, 7+b), where b = log2(S/16).

The permutation works on the shared-memory address itself, which is why TMA requires a swizzled
box's destination to be aligned to the pattern's repeat (and wgmma descriptors carry a "base
offset" for matrices that start elsewhere). `swizzle` therefore takes absolute addresses; a
caller with an offset into an aligned buffer may pass the offset.

On sm_100 the 128-byte span may permute larger units (the tensor map's "swizzle atomicity",
PTX ISA 8.6): 32-byte chunks (address bits [5, 7) XOR bits [7, 9)), the same with the two 8-byte
halves of every 16 bytes swapped on odd 128-byte rows (bit 3 XOR bit 7), or 64-byte chunks
(bit 6 XOR bit 7).

Two encodings name the same modes: the tensor map's (cuTensorMapEncode `CU_TENSOR_MAP_SWIZZLE_*`:
0 none, 1 32B, 2 64B, 3 128B) and the wgmma matrix descriptor's bits 62-63 (0 none, 1 128B,
2 64B, 3 32B).
"""
from __future__ import annotations

#: Mode name -> span in bytes (0: no swizzle).
SPAN: dict[str, int] = {"none": 0, "32B": 32, "64B": 64, "128B": 128}

#: CUtensorMapSwizzle value -> mode.
TENSOR_MAP_CODE: dict[int, str] = {0: "none", 1: "32B", 2: "64B", 3: "128B"}

#: wgmma matrix-descriptor "swizzle mode" field (bits 62-63) -> mode.
DESCRIPTOR_CODE: dict[int, str] = {0: "none", 1: "128B", 2: "64B", 3: "32B"}

CHUNK_BITS = 4      # 16-byte chunks
ROW_BITS = 7        # 128-byte rows

#: swizzle atomicity -> (chunk bit, number of chunk bits, flip the 8-byte halves on odd rows),
#: for the 128-byte span; "16B" is the classic pattern of every span
ATOMICITY: dict[str, tuple[int, int, bool]] = {"16B": (4, 3, False), "32B": (5, 2, False),
                                               "32B_flip_8B": (5, 2, True), "64B": (6, 1, False)}


def repeat_bytes(mode: str) -> int:
    """Bytes after which the pattern repeats, the alignment a swizzled TMA destination needs:
    S/16 rows of 128 bytes (256, 512, 1024 bytes for 32B, 64B, 128B); 16 without swizzle."""
    span = _span(mode)
    return 16 if span == 0 else 128 * (span // 16)


def swizzle(address, mode: str, atomicity: str = "16B"):
    """The swizzled shared-memory byte address of `address` (an int or an integer NumPy array).
    The permutation is its own inverse, so the same function unswizzles. A coarser atomicity
    than 16 bytes exists for the 128-byte span only."""
    span = _span(mode)
    if span == 0:
        return address
    if atomicity != "16B":
        if span != 128 or atomicity not in ATOMICITY:
            raise ValueError(f"swizzle atomicity {atomicity!r} needs the 128B swizzle mode")
        low, bits, flip = ATOMICITY[atomicity]
        mask = (1 << bits) - 1
        address = _integer(address)
        out = address ^ (((address >> ROW_BITS) & mask) << low)
        return out ^ (((address >> ROW_BITS) & 1) << 3) if flip else out
    bits = (span // 16).bit_length() - 1            # 1, 2, 3 for 32B, 64B, 128B
    mask = (1 << bits) - 1
    address = _integer(address)
    return address ^ (((address >> ROW_BITS) & mask) << CHUNK_BITS)


def _integer(address):
    """An array stays as it is (the same bit operations apply element-wise); anything else
    becomes a Python int. No NumPy import: the checker reads this module and starts without it."""
    return address if hasattr(address, "__array__") else int(address)


def _span(mode: str) -> int:
    try:
        return SPAN[mode]
    except KeyError:
        raise ValueError(f"unknown swizzle mode {mode!r}; expected one of {', '.join(SPAN)}") from None
