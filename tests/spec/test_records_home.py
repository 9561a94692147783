"""Every instruction name the record registry maps to a module is defined by that module (a name
mapped twice, the later module lacking it, made every module using it an internal error — or
not, depending on which record module happened to load first)."""
import importlib

import pytest

from ptxld.spec import instructions


@pytest.mark.parametrize("name", sorted(instructions._HOME))
def test_every_mapped_name_is_defined_by_its_module(name):
    module = importlib.import_module("ptxld.spec." + instructions._HOME[name])
    assert name in {record.name for record in module.RECORDS}, instructions._HOME[name]
