"""Every PTX instruction mnemonic (the part before the first `.`), as data.

Source: PTX ISA 9.2 Table 2 "Reserved Instruction Keywords" and the instruction chapters
(§9.7), up to PTX ISA 9.0 as accepted by ptxas 13.0 — each name below was checked to be known to
ptxas 13.0 (tests/check/test_opcodes.py re-checks that where ptxas is installed). A statement whose
mnemonic is not listed is rejected by ptxas: "Not a name of any known instruction".
"""
from __future__ import annotations

from .. import patterns


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


class SpecialRegister:
    """A predefined, read-only register (PTX ISA chapter 10): its type, the components it has
    (`%tid.x`, also written `.r .g .b .a`; ptxas accepts `.w` too; "" for a scalar) and the gate of
    its introduction where it is newer than PTX 1.0."""
    __slots__ = ("name", "type", "components", "min_ptx", "min_sm")

    def __init__(self, name: str, type: str, components: str = "", min_ptx: tuple[int, int] = (1, 0),
                 min_sm: int | None = None):
        self.name, self.type, self.components, self.min_ptx, self.min_sm = name, type, components, min_ptx, min_sm

    def __repr__(self) -> str:
        return f"SpecialRegister({self.name!r}, {self.type!r}, {self.components!r})"


# The gates below are the PTX ISA's; the whole-ISA differential tests against ptxas check them.
def _sregs() -> dict[str, SpecialRegister]:
    out = {}
    for names, t, comps, ptx, sm in (
            ("%tid %ntid %ctaid %nctaid", ".u32", "xyzw", (1, 0), None),
            ("%laneid %warpid %nwarpid %smid %nsmid %clock", ".u32", "", (1, 0), None),
            ("%gridid", ".u64", "", (1, 0), None),
            ("%lanemask_eq %lanemask_le %lanemask_lt %lanemask_ge %lanemask_gt", ".u32", "", (2, 0), 20),
            ("%clock64", ".u64", "", (2, 0), 20), ("%clock_hi", ".u32", "", (5, 0), 20),
            ("%globaltimer", ".u64", "", (3, 1), 30),
            ("%globaltimer_lo %globaltimer_hi", ".u32", "", (3, 1), 30),
            ("%total_smem_size %dynamic_smem_size", ".u32", "", (4, 1), 20),
            ("%aggr_smem_size", ".u32", "", (8, 1), 90),
            ("%clusterid %nclusterid %cluster_ctaid %cluster_nctaid", ".u32", "xyzw", (7, 8), 90),
            ("%cluster_ctarank %cluster_nctarank", ".u32", "", (7, 8), 90),
            ("%is_explicit_cluster", ".pred", "", (7, 8), 90),
            ("%current_graph_exec", ".u64", "", (8, 0), 50),
            ("%reserved_smem_offset_begin %reserved_smem_offset_end %reserved_smem_offset_cap", ".b32",
             "", (7, 6), 80),
            ("%perctamemoryoffset %perctamemorysize", ".u32", "", (9, 0), 100),
            ("WARP_SZ", ".u32", "", (1, 0), None)):
        for n in names.split():
            out[n] = SpecialRegister(n, t, comps, ptx, sm)
    return out


#: Predefined identifiers (PTX ISA 4.4 Table 3 and chapter 10). Names with a numeric suffix
#: (%envreg0..31, %pm0..7, %pm0_64..) are matched by `special_register`.
SPECIAL: dict[str, SpecialRegister] = _sregs()
SPECIAL_REGISTERS: frozenset[str] = frozenset(SPECIAL)
_NUMBERED = patterns.compile(r"%(?:(envreg)\d+|(pm)\d+(_64)?|(reserved_smem_offset)_\d+)")


def special_register(name: str) -> SpecialRegister | None:
    """The record of a predefined register or constant, or None."""
    got = SPECIAL.get(name)
    if got is None and name.startswith("%"):
        m = _NUMBERED.fullmatch(name)
        if m is not None:
            env, pm, wide, reserved = m.groups()
            t = ".b32" if env or reserved else (".u64" if wide else ".u32")
            got = SpecialRegister(name, t)
    return got


def is_predefined(name: str) -> bool:
    return special_register(name) is not None


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


#: Every instruction of PTX ISA 9.0, as the ISA's chapter 9.7 titles them, by section, with the
#: first target family that has it (the emulator's inventory and its docs page list these).
ISA_INSTRUCTIONS: tuple[tuple[str, str, int], ...] = tuple(
    (name, section, sm) for section, sm, names in (
        ("Integer arithmetic", 20, "add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz "
                                   "bfind brev bfe bfi fns"),
        ("Integer arithmetic", 61, "dp4a dp2a"),
        ("Integer arithmetic", 70, "szext bmsk"),
        ("Extended-precision integer arithmetic", 20, "add.cc addc sub.cc subc mad.cc madc"),
        ("Floating-point", 20, "testp copysign fma rcp sqrt rsqrt sin cos lg2 ex2"),
        ("Floating-point", 75, "tanh"),
        ("Comparison and selection", 20, "set setp selp slct"),
        ("Logic and shift", 20, "and or xor not cnot shl shr"),
        ("Logic and shift", 50, "lop3 shf"),
        ("Data movement and conversion", 20, "mov ld ldu st prefetch prefetchu isspacep cvta cvt prmt"),
        ("Data movement and conversion", 30, "shfl"),
        ("Data movement and conversion", 72, "cvt.pack"),
        ("Data movement and conversion", 80, "createpolicy applypriority discard cp.async cp.async.commit_group "
                                             "cp.async.wait_group cp.async.wait_all"),
        ("Data movement and conversion", 90, "mapa getctarank cp.async.bulk cp.reduce.async.bulk "
                                             "cp.async.bulk.prefetch cp.async.bulk.tensor "
                                             "cp.reduce.async.bulk.tensor cp.async.bulk.prefetch.tensor "
                                             "cp.async.bulk.commit_group cp.async.bulk.wait_group "
                                             "tensormap.replace multimem.ld_reduce multimem.st multimem.red "
                                             "st.async red.async"),
        ("Data movement and conversion", 100, "st.bulk"),
        ("Texture and surface", 20, "tex tld4 txq istypep suld sust sured suq"),
        ("Control flow", 20, "bra brx.idx call ret exit"),
        ("Parallel synchronization and communication", 20, "bar barrier membar atom red vote"),
        ("Parallel synchronization and communication", 30, "bar.warp.sync activemask"),
        ("Parallel synchronization and communication", 70, "fence match"),
        ("Parallel synchronization and communication", 80, "redux mbarrier.init mbarrier.inval "
                                                           "mbarrier.arrive mbarrier.arrive_drop "
                                                           "cp.async.mbarrier.arrive mbarrier.test_wait "
                                                           "mbarrier.pending_count"),
        ("Parallel synchronization and communication", 90, "barrier.cluster elect griddepcontrol "
                                                           "mbarrier.expect_tx mbarrier.complete_tx "
                                                           "mbarrier.try_wait tensormap.cp_fenceproxy"),
        ("Parallel synchronization and communication", 100, "clusterlaunchcontrol.try_cancel "
                                                            "clusterlaunchcontrol.query_cancel"),
        ("Warp-level matrix", 70, "wmma.load wmma.store wmma.mma mma"),
        ("Warp-level matrix", 75, "ldmatrix movmatrix"),
        ("Warp-level matrix", 80, "mma.sp"),
        ("Warp-level matrix", 90, "stmatrix"),
        ("Asynchronous warpgroup matrix", 90, "wgmma.fence wgmma.mma_async wgmma.mma_async.sp "
                                              "wgmma.commit_group wgmma.wait_group"),
        ("Tensor core 5th generation", 100, "tcgen05.alloc tcgen05.dealloc tcgen05.relinquish_alloc_permit "
                                           "tcgen05.ld tcgen05.st tcgen05.wait tcgen05.cp tcgen05.shift "
                                           "tcgen05.mma tcgen05.mma.sp tcgen05.commit tcgen05.fence"),
        ("Stack manipulation", 20, "stacksave stackrestore alloca"),
        ("Video", 20, "vadd vsub vabsdiff vmin vmax vshl vshr vmad vset vadd2 vsub2 vavrg2 vabsdiff2 "
                      "vmin2 vmax2 vset2 vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4 vset4"),
        ("Miscellaneous", 20, "brkpt nanosleep pmevent trap"),
        ("Miscellaneous", 90, "setmaxnreg"),
    ) for name in names.split())


def _families() -> dict[str, frozenset[str]]:
    """Mnemonics that are only ever written with a sub-name (`wmma.load`, `cp.async`, ...):
    mnemonic -> the sub-names the ISA defines (`wmma` -> {load, store, mma})."""
    whole = {name for name, _, _ in ISA_INSTRUCTIONS if "." not in name}
    out: dict[str, set[str]] = {}
    for name, _, _ in ISA_INSTRUCTIONS:
        head, _, rest = name.partition(".")
        if rest and head not in whole:
            out.setdefault(head, set()).add(rest.split(".")[0])
    return {k: frozenset(v) for k, v in out.items()}


#: `wmma` -> {"load", "store", "mma"}: a family mnemonic is an instruction only with one of these
SUBNAMES: dict[str, frozenset[str]] = _families()


#: Dotted instruction names of the ISA (`barrier.cluster`, `st.async`, `fence.proxy`, ...): an
#: opcode that starts with one is that instruction, not its shorter namesake with modifiers.
DOTTED_NAMES: frozenset[str] = frozenset(
    {name for name, _, _ in ISA_INSTRUCTIONS if "." in name} | {"fence.proxy", "membar.proxy"})
