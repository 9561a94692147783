"""Fresh differential check against ptxas 12.9 + nvdisasm 12.8 where they are installed
(tools/sass_groundtruth/install_tools.sh); skipped elsewhere — the committed vectors cover CI."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ptxld.sass import disassemble, lower

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools/sass_groundtruth"))

import sass_gt_common as common  # noqa: E402

pytestmark = pytest.mark.ptxas
needs_tools = pytest.mark.skipif(not (common.PTXAS12.exists() and common.NVDISASM.exists()),
                                 reason="ptxas 12.9 / nvdisasm 12.8 not installed "
                                        "(tools/sass_groundtruth/install_tools.sh)")


@needs_tools
@pytest.mark.parametrize("cls, generic", [(".global.cs", False), (".global.nc", False), (".cv", True)])
@pytest.mark.parametrize("vec, t, offset", [("", "s16", 0x7FFFFE), (".v2", "f32", -0x800008),
                                            (".v4", "u8", 0x1234568)])
def test_fresh_variant(cls, generic, vec, t, offset):
    import sass_gt_variants as V
    from gen_ptxas import compile_module, listing_of, text_sections
    v = V.make(cls, generic, vec, t, uniform=True, offset=offset)
    cubin, msg = compile_module(common.PTXAS12, V.module([V.kernel("k", v)]), "sm_50")
    assert cubin is not None, msg
    listing = listing_of(cubin)
    data = text_sections(cubin)[".text.k"]
    loads = [(off, e["text"]) for (_, off), e in sorted(listing.items())
             if re.match(r"LDG?[. ]", e["text"])]
    assert len(loads) == 1
    off, text = loads[0]
    assert disassemble(int.from_bytes(data[off:off + 8], "little")) == text
    mine = [t for t in lower(v.ptx, uniform=True) if re.match(r"LDG?[. ]", t)]
    assert re.sub(r"R\d+", "R", mine[0]) == re.sub(r"R\d+", "R", text)
