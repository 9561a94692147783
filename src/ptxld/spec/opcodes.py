"""Every PTX instruction mnemonic (the part before the first `.`), as data.

Source: PTX ISA 9.2 Table 2 "Reserved Instruction Keywords" and the instruction chapters
(§9.7), up to PTX ISA 9.0 as accepted by ptxas 13.0 — each name below was checked to be known to
ptxas 13.0 (tests/check/test_opcodes.py re-checks that where ptxas is installed). A statement whose
mnemonic is not listed is rejected by ptxas: "Not a name of any known instruction".
"""
from __future__ import annotations

import re

MNEMONICS: frozenset[str] = frozenset("""
abs activemask add addc alloca and applypriority atom bar barrier bfe bfi bfind bmsk bra brev brkpt
brx call clusterlaunchcontrol clz cnot copysign cos cp createpolicy cvt cvta discard div dp2a dp4a
elect ex2 exit fence fma fns getctarank griddepcontrol isspacep istypep ld ldmatrix ldu lg2 lop3
mad mad24 madc mapa match max mbarrier membar min mma mov movmatrix mul mul24 multimem nanosleep
neg not or pmevent popc prefetch prefetchu prmt rcp red redux rem ret rsqrt sad selp set
setmaxnreg setp shf shfl shl shr sin slct sqrt st stackrestore stacksave stmatrix sub subc suld
suq sured sust szext tanh tcgen05 tensormap testp tex tld4 trap txq vabsdiff vabsdiff2 vabsdiff4
vadd vadd2 vadd4 vavrg2 vavrg4 vmad vmax vmax2 vmax4 vmin vmin2 vmin4 vote vset vset2 vset4 vshl
vshr vsub vsub2 vsub4 wgmma wmma xor
""".split())

#: Instructions this checker models in depth (everything else is checked for its mnemonic and
#: declared names only).
LOAD_MNEMONICS = frozenset({"ld", "wmma"})


def is_known(mnemonic: str) -> bool:
    return mnemonic in MNEMONICS

#: Predefined identifiers (PTX ISA 4.4 Table 3 and chapter 10): special registers and constants.
#: Names with a numeric suffix (%envreg0..31, %pm0..7, %pm0_64..) are matched by `is_predefined`.
SPECIAL_REGISTERS: frozenset[str] = frozenset("""
%tid %ntid %laneid %warpid %nwarpid %ctaid %nctaid %smid %nsmid %gridid %is_explicit_cluster
%clusterid %nclusterid %cluster_ctaid %cluster_nctaid %cluster_ctarank %cluster_nctarank
%lanemask_eq %lanemask_le %lanemask_lt %lanemask_ge %lanemask_gt %clock %clock_hi %clock64
%globaltimer %globaltimer_lo %globaltimer_hi %total_smem_size %aggr_smem_size %dynamic_smem_size
%current_graph_exec %reserved_smem_offset_begin %reserved_smem_offset_end %reserved_smem_offset_cap
%perctamemoryoffset %perctamemorysize WARP_SZ
""".split())
_NUMBERED = re.compile(r"%(?:envreg\d+|pm\d+(?:_64)?|reserved_smem_offset_\d+)")


def is_predefined(name: str) -> bool:
    return name in SPECIAL_REGISTERS or (name.startswith("%") and _NUMBERED.fullmatch(name) is not None)


#: Every PTX directive keyword (PTX ISA 9.2 Table 3 "PTX Directives", plus the variable
#: attributes and state spaces a declaration may start with). A statement that starts with any
#: other `.name` is a syntax error to ptxas 13.0 ("Parsing error near '.ld'").
DIRECTIVES: frozenset[str] = frozenset("""
.address_size .alias .align .branchtargets .callprototype .calltargets .common .const .entry
.explicitcluster .extern .file .func .global .loc .local .maxclusterrank .maxnctapersm .maxnreg
.maxntid .minnctapersm .noreturn .param .pragma .reg .reqnctapercluster .reqntid .section .shared
.sreg .target .tex .version .visible .weak .abi_preserve .abi_preserve_control .blocksareclusters
.attribute .ptr .texref .samplerref .surfref
""".split())
