"""ptxld: NVIDIA's GPU load instructions as software.

Parse PTX modules, check loads against the PTX ISA and ptxas, run kernels on the CPU, and
work with Maxwell SASS ``LDG``.
"""
__version__ = "0.1.0"
