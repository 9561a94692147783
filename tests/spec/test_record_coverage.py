"""Every instruction of the PTX ISA has a record in `ptxld.spec` (its qualifier groups, forms,
operands and gates), or is listed below with the reason it has none yet.

The instruction list is independent of the records: the reserved instruction keywords of the ISA
(`opcodes.MNEMONICS`, each checked against ptxas 13.0 by tests/check/test_opcodes.py) and the
instruction titles of its chapter 9.7 (`opcodes.ISA_INSTRUCTIONS`)."""
from ptxld.spec import instructions
from ptxld.spec.decode import decode
from ptxld.spec.opcodes import ISA_INSTRUCTIONS, MNEMONICS

# instruction -> why it has no record yet (an entry that gains a record must leave this table)
WITHOUT_RECORD: dict[str, str] = {
}


def _recorded(name: str) -> bool:
    """A record of that name, one that starts with it (`elect` -> `elect.sync`, `tcgen05.wait`
    -> `tcgen05.wait::ld`: the ISA titles the instruction without the `::` suffix it is always
    written with), or a record whose modifiers spell the rest (`add.cc`: add's `.cc`)."""
    names = instructions.names()
    if name in names or any(n.startswith((name + ".", name + "::")) for n in names):
        return True
    d = decode(name)
    return d.spec is not None and not d.others


def _mnemonic_recorded(mnemonic: str) -> bool:
    return any(n.split(".")[0] == mnemonic for n in instructions.names())


def test_every_mnemonic_has_a_record_or_a_reason():
    missing = {m for m in MNEMONICS if not _mnemonic_recorded(m)}
    undocumented = sorted(missing - set(WITHOUT_RECORD))
    assert not undocumented, f"mnemonics without a record or a reason: {undocumented}"


def test_every_isa_instruction_has_a_record_or_a_reason():
    missing = {name for name, _, _ in ISA_INSTRUCTIONS if not _recorded(name)}
    undocumented = sorted(missing - set(WITHOUT_RECORD))
    assert not undocumented, f"ISA instructions without a record or a reason: {undocumented}"


def test_the_reasons_are_current():
    """An entry of WITHOUT_RECORD whose instruction has a record now is stale."""
    stale = sorted(n for n in WITHOUT_RECORD
                   if (_mnemonic_recorded(n) if n in MNEMONICS else _recorded(n)))
    assert not stale, f"these have records now; drop them from WITHOUT_RECORD: {stale}"
    known = MNEMONICS | {name for name, _, _ in ISA_INSTRUCTIONS}
    assert set(WITHOUT_RECORD) <= known
    assert all(reason.strip() for reason in WITHOUT_RECORD.values())
