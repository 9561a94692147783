"""Every instruction name the record registry maps to a module is defined by that module (a name
mapped twice, the later module lacking it, made every module using it an internal error)."""
import pytest

from ptxld.spec import instructions


@pytest.mark.parametrize("name", sorted(instructions._HOME))
def test_every_mapped_name_has_its_record(name):
    spec = instructions.spec_of(name)
    assert spec is not None and spec.name == name
