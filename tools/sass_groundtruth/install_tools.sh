#!/usr/bin/env bash
# Install the NVIDIA tools the ground-truth scripts use into throwaway folders (not the project env).
#   ptxas 12.9.86  : PyPI nvidia-cuda-nvcc-cu12==12.9.86   (sm_50..sm_61, 64-bit)
#   ptxas 11.8.89  : PyPI nvidia-cuda-nvcc-cu11==11.8.89   (-m32: LDG without .E)
#   nvdisasm 12.8.55 / cuobjdump 12.8.55 : bundled in PyPI triton==3.3.1 (the newest nvdisasm
#                    that still accepts SM50; CUDA 13 ones refuse it)
set -euo pipefail
ROOT=${SASS_GT_TOOLS:-/tmp/sass_gt_tools}
mkdir -p "$ROOT"
[ -x "$ROOT/cu12/nvidia/cuda_nvcc/bin/ptxas" ] || pip install -q --no-deps --target "$ROOT/cu12" nvidia-cuda-nvcc-cu12==12.9.86
[ -x "$ROOT/cu11/nvidia/cuda_nvcc/bin/ptxas" ] || pip install -q --no-deps --target "$ROOT/cu11" nvidia-cuda-nvcc-cu11==11.8.89
[ -x "$ROOT/triton/triton/backends/nvidia/bin/nvdisasm" ] || pip install -q --no-deps --target "$ROOT/triton" triton==3.3.1
echo "tools in $ROOT"
