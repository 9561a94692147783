"""Plain slotted classes for the records and nodes every `ptxld` command defines at start-up.

`dataclass` writes each class's methods as source text and compiles them while the module is
imported, about 1 ms a class: for the ~30 classes of the parser, the checker and their records
that was a third of the start-up of `ptxld check`. These classes write their `__init__` by hand
(the hot ones build thousands of instances) and take `__repr__` and `__eq__` from here.
`FIELDS` lists a class's fields in order (its `__slots__`, with a base class's first).
"""
from __future__ import annotations


class Node:
    """A repr listing the fields; equality is identity (syntax-tree nodes, models)."""
    __slots__ = ()
    FIELDS: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.FIELDS)})"


class Value(Node):
    """Equal when of the same class with equal fields (operands); unhashable, as they are mutable."""
    __slots__ = ()

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.FIELDS)

    __hash__ = None  # type: ignore[assignment]


class Record(Node):
    """An immutable value (rule records, targets, table rows): equal and hashed by its fields,
    built by a generic `__init__` from positional or keyword arguments and `DEFAULTS`."""
    __slots__ = ()
    DEFAULTS: dict = {}

    def __init__(self, *args, **kwargs):
        names = self.FIELDS
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} arguments, {len(args)} given")
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in values:
                raise TypeError(f"{type(self).__name__}(): unexpected or repeated argument {k!r}")
            values[k] = v
        for n in names:
            if n in values:
                v = values[n]
            elif n in self.DEFAULTS:
                v = self.DEFAULTS[n]
            else:
                raise TypeError(f"{type(self).__name__}(): missing argument {n!r}")
            object.__setattr__(self, n, v)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def _values(self) -> tuple:
        return tuple(getattr(self, n) for n in self.FIELDS)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self):
        return hash(self._values())

    def __reduce__(self):  # pickling would otherwise set the fields through __setattr__
        return (type(self), self._values())
