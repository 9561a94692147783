"""spec/opcodes.py against ptxas 13.0: every listed mnemonic is known, unlisted words are not."""
from __future__ import annotations

import re

import pytest

from ptxas_util import PTXAS, assemble
from ptxld.spec.opcodes import MNEMONICS, is_predefined

# A bare mnemonic is enough for ptxas to recognise it, except `brx` (known as `brx.idx`, which
# then stops ptxas with a fatal error, so it is checked on its own).
SPELLED = {"brx": "brx.idx"}
UNKNOWN = ["nop", "lod", "ssy", "ldg"]


def test_predefined_identifiers():
    assert all(is_predefined(x) for x in ("%tid", "%envreg31", "%pm7_64", "%reserved_smem_offset_1", "WARP_SZ"))
    assert not any(is_predefined(x) for x in ("%r1", "%pmx", "%tidx"))


@pytest.mark.ptxas
@pytest.mark.skipif(not PTXAS, reason="ptxas not installed")
def test_mnemonics_known_to_ptxas():
    for names in (UNKNOWN + sorted(MNEMONICS - set(SPELLED)), [SPELLED[m] for m in SPELLED]):
        body = "\n".join(f"{m};" for m in names)
        rc, out = assemble(f".version 9.0\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n{body}\nret;\n}}\n")
        unknown = set(re.findall(r"Not a name of any known instruction: '([\w.]+)'", out))
        assert unknown == set(UNKNOWN) & set(names)
