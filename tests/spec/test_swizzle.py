"""The swizzle modes against the PTX ISA's pictures of them (Tensors > Swizzling Modes): row r of
128 bytes holds its eight 16-byte chunks in the order c XOR (r mod S/16)."""
import numpy as np
import pytest

from ptxld.spec import swizzle as sw

# The ISA's figures, written out: the chunk stored at each position of rows 0..7, per mode.
ISA_ROWS = {
    "32B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]] * 4,
    "64B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6],
            [2, 3, 0, 1, 6, 7, 4, 5], [3, 2, 1, 0, 7, 6, 5, 4]] * 2,
    "128B": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6],
             [2, 3, 0, 1, 6, 7, 4, 5], [3, 2, 1, 0, 7, 6, 5, 4],
             [4, 5, 6, 7, 0, 1, 2, 3], [5, 4, 7, 6, 1, 0, 3, 2],
             [6, 7, 4, 5, 2, 3, 0, 1], [7, 6, 5, 4, 3, 2, 1, 0]],
}


@pytest.mark.parametrize("mode", ["32B", "64B", "128B"])
def test_rows_match_the_isa_pictures(mode):
    for row, chunks in enumerate(ISA_ROWS[mode]):
        for position, chunk in enumerate(chunks):
            source = row * 128 + chunk * 16 + 5             # a byte inside the chunk
            assert sw.swizzle(source, mode) == row * 128 + position * 16 + 5


@pytest.mark.parametrize("mode", list(sw.SPAN))
def test_a_permutation_of_each_repeat_and_its_own_inverse(mode):
    repeat = sw.repeat_bytes(mode)
    addresses = np.arange(4 * repeat) + 3 * repeat
    out = sw.swizzle(addresses, mode)
    assert np.array_equal(np.sort(out), addresses)
    assert np.array_equal(sw.swizzle(out, mode), addresses)
    assert [sw.swizzle(int(a), mode) for a in addresses[:300]] == out[:300].tolist()
    # bytes never leave their repeat-sized block
    assert np.array_equal(out // repeat, addresses // repeat)


def test_the_two_encodings_name_the_same_modes():
    assert set(sw.TENSOR_MAP_CODE.values()) == set(sw.DESCRIPTOR_CODE.values()) == set(sw.SPAN)


def test_an_unknown_mode_is_refused_by_name():
    with pytest.raises(ValueError, match="'256B'"):
        sw.swizzle(0, "256B")


@pytest.mark.parametrize("atomicity", ["32B", "32B_flip_8B", "64B"])
def test_coarser_atomicity_permutes_within_each_1024_bytes(atomicity):
    """sm_100's 128-byte span with 32- or 64-byte units: a permutation of every 1024 bytes, its
    own inverse, that keeps 16-byte alignment of 16-byte chunks only with the 8-byte flip off."""
    addresses = np.arange(4096)
    out = sw.swizzle(addresses, "128B", atomicity)
    assert np.array_equal(np.sort(out), addresses)
    assert np.array_equal(sw.swizzle(out, "128B", atomicity), addresses)
    assert np.array_equal(out // 1024, addresses // 1024)
    # row 1 of 128 bytes: its first unit moves one unit along (32 or 64 bytes), flipped or not
    unit = 64 if atomicity == "64B" else 32
    assert sw.swizzle(128, "128B", atomicity) == 128 + unit + (8 if "flip" in atomicity else 0)
    assert sw.swizzle(0, "128B", atomicity) == 0


def test_coarser_atomicity_needs_the_128b_span():
    with pytest.raises(ValueError, match="needs the 128B swizzle mode"):
        sw.swizzle(0, "64B", "32B")
