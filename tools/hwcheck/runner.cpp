// Runs PTX kernels `k(const u64* in, u64* out)` (one 64-byte row per thread, one CTA) on the
// GPU through the CUDA driver API. jobs.txt: "<name> <threads>" per line; reads <name>.ptx and
// <name>.in, writes <name>.out (or <name>.err with the driver's message).
#include <cuda.h>
#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s; s << f.rdbuf(); return s.str();
}

// libcuda is opened at run time (the build machine has no driver to link against)
#define FN(name) static decltype(&::name) p_##name;
#define LOAD(name) p_##name = (decltype(p_##name))dlsym(h, #name); if (!p_##name) { printf("no %s\n", #name); return 2; }
FN(cuInit) FN(cuDeviceGet) FN(cuDevicePrimaryCtxRetain) FN(cuCtxSetCurrent) FN(cuModuleLoadDataEx)
FN(cuModuleGetFunction) FN(cuMemAlloc_v2) FN(cuMemcpyHtoD_v2) FN(cuMemsetD8_v2) FN(cuLaunchKernel)
FN(cuCtxSynchronize) FN(cuMemcpyDtoH_v2) FN(cuMemFree_v2) FN(cuModuleUnload)

int main(int argc, char** argv) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) { printf("no libcuda: %s\n", dlerror()); return 2; }
  LOAD(cuInit) LOAD(cuDeviceGet) LOAD(cuDevicePrimaryCtxRetain) LOAD(cuCtxSetCurrent)
  LOAD(cuModuleLoadDataEx) LOAD(cuModuleGetFunction) LOAD(cuMemAlloc_v2) LOAD(cuMemcpyHtoD_v2)
  LOAD(cuMemsetD8_v2) LOAD(cuLaunchKernel) LOAD(cuCtxSynchronize) LOAD(cuMemcpyDtoH_v2)
  LOAD(cuMemFree_v2) LOAD(cuModuleUnload)
  std::string dir = argc > 1 ? argv[1] : ".";
  std::string out = argc > 2 ? argv[2] : ".";
  p_cuInit(0);
  CUdevice dev; p_cuDeviceGet(&dev, 0);
  CUcontext ctx; p_cuDevicePrimaryCtxRetain(&ctx, dev); p_cuCtxSetCurrent(ctx);
  std::ifstream jobs(dir + "/jobs.txt");
  std::string name; int n;
  while (jobs >> name >> n) {
    std::string ptx = slurp(dir + "/" + name + ".ptx");
    std::string in = slurp(dir + "/" + name + ".in");
    CUmodule mod; CUfunction fn;
    char log[8192] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, (void*)(size_t)sizeof(log)};
    CUresult r = p_cuModuleLoadDataEx(&mod, ptx.c_str(), 2, opts, vals);
    if (r == CUDA_SUCCESS) r = p_cuModuleGetFunction(&fn, mod, "k");
    if (r != CUDA_SUCCESS) {
      std::ofstream e(out + "/" + name + ".err"); e << "load " << r << " " << log; continue;
    }
    CUdeviceptr din, dout;
    p_cuMemAlloc_v2(&din, in.size()); p_cuMemAlloc_v2(&dout, in.size());
    p_cuMemcpyHtoD_v2(din, in.data(), in.size()); p_cuMemsetD8_v2(dout, 0, in.size());
    void* args[] = {&din, &dout};
    r = p_cuLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, 0, args, 0);
    if (r == CUDA_SUCCESS) r = p_cuCtxSynchronize();
    if (r != CUDA_SUCCESS) { std::ofstream e(out + "/" + name + ".err"); e << "run " << r; return 1; }
    std::vector<char> buf(in.size());
    p_cuMemcpyDtoH_v2(buf.data(), dout, in.size());
    std::ofstream o(out + "/" + name + ".out", std::ios::binary); o.write(buf.data(), buf.size());
    p_cuMemFree_v2(din); p_cuMemFree_v2(dout); p_cuModuleUnload(mod);
  }
  return 0;
}
