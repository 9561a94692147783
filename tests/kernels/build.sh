#!/usr/bin/env bash
# Rebuild the PTX corpus: tests/kernels/cuda/<name>.cu -> tests/kernels/ptx/<arch>/<name>.ptx.
# Every command run is written to ptx/COMMANDS.txt together with `nvcc --version`; each PTX file
# is then assembled with ptxas for its own target as a legality check (output discarded), and
# ptx/INVENTORY.txt lists the load forms per target and the opcodes used (inventory.py).
# The Hopper sources (sm90_*.cu: sm_90; sm90a_*.cu: wgmma, multicast, setmaxnreg, tensormap.replace,
# so sm_90a only) include cuda/sm90_common.cuh and the CCCL <cuda/ptx> headers of the toolkit.
# The warp-level matrix sources (matrix_*.cu: ldmatrix, stmatrix, movmatrix, mma.sync) include
# cuda/matrix_common.cuh; matrix_sm90.cu (stmatrix, f64 m16n8k16, e4m3) is built for sm_90 only,
# matrix_wgmma.cu and matrix_wgmma_sparse.cu (wgmma, dense and sparse, without TMA) for sm_90a only.
# Usage: tests/kernels/build.sh            (NVCC=/path/to/nvcc to pick another compiler)
set -euo pipefail
cd "$(dirname "$0")"

NVCC=${NVCC:-nvcc}
PTXAS=${PTXAS:-ptxas}
FLAGS="-O3 -ptx -std=c++17"
LOADFORM_ARCHS="sm_75 sm_80 sm_90 sm_90a sm_100a"
PROGRAM_ARCHS="sm_80 sm_90"

# source name -> targets it is compiled for (one line each; the single source of truth)
TARGETS="
loadforms_intrinsics  $LOADFORM_ARCHS
loadforms_memory      $LOADFORM_ARCHS
loadforms_cccl_ptx    $LOADFORM_ARCHS
loadforms_wmma        $LOADFORM_ARCHS
loadforms_asm         $LOADFORM_ARCHS
programs_basic        $PROGRAM_ARCHS
programs_math         $PROGRAM_ARCHS
programs_loads        $PROGRAM_ARCHS
programs_sm100a       sm_100a
wmma_gemm             $PROGRAM_ARCHS
bench_shapes          sm_80
memreport_access      sm_80
memreport_cache       sm_80
sm90_cluster          sm_90
sm90_warp             sm_90
sm90_mbarrier         sm_90
sm90_bulk             sm_90
sm90_tma              sm_90
sm90a_hopper          sm_90a
sm90a_wgmma           sm_90a
async_sm80            $PROGRAM_ARCHS
async_sm90            sm_90
async_sm90a           sm_90a
matrix_gemm           $PROGRAM_ARCHS
matrix_fragments      $PROGRAM_ARCHS
matrix_sm90           sm_90
matrix_wgmma          sm_90a
matrix_wgmma_sparse   sm_90a
matrix_sparse         $PROGRAM_ARCHS
arith_int128          $PROGRAM_ARCHS
arith_video           $PROGRAM_ARCHS
arith_switch          $PROGRAM_ARCHS
arith_sync            $PROGRAM_ARCHS
"

# extra nvcc flags per source: arith_switch asks for jump tables (nvcc's default density, 101,
# never makes them), so that its switch becomes brx.idx over .branchtargets
extra_flags() {
  case "$1" in
    arith_switch) echo "--jump-table-density=0" ;;
  esac
}

rm -rf ptx
mkdir -p ptx
log=ptx/COMMANDS.txt
{
  echo "# Commands that produced the PTX under tests/kernels/ptx (run from tests/kernels)."
  echo "# \$ $NVCC --version"
  "$NVCC" --version | sed 's/^/# /'
  echo
} > "$log"

while read -r name archs; do
  [ -n "$name" ] || continue
  for arch in $archs; do
    mkdir -p "ptx/$arch"
    cmd="$NVCC $FLAGS $(extra_flags "$name") -arch=$arch cuda/$name.cu -o ptx/$arch/$name.ptx"
    echo "$cmd" >> "$log"
    echo "$cmd"
    $cmd
    "$PTXAS" -arch="$arch" "ptx/$arch/$name.ptx" -o /dev/null
  done
done <<< "$TARGETS"
python3 inventory.py > ptx/INVENTORY.txt
echo "ok: $(find ptx -name '*.ptx' | wc -l) PTX files; inventory in ptx/INVENTORY.txt"
