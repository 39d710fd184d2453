// reduce_anatomy.cpp: the reduction lab's launch over its input, for the array map (see reduce_anatomy.h).
#include "gpu/reduce/reduce_anatomy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace bs::anatomy {

reduce::KernelShape reduce_launch_shape(const reduce::Params& p, int sm_count, int max_threads_per_sm,
                                        int max_blocks_per_sm, int64_t smem_optin) {
  const int resident =
      std::max(1, std::min(max_threads_per_sm / std::max(p.block, 1), std::max(max_blocks_per_sm, 1)));
  return reduce::first_kernel_shape(p, reduce::make_plan(p, sm_count, resident), smem_optin);
}

reduce::KernelShape reduce_launch_shape_model(const reduce::Params& p) {
  const ArchSpec a = *find_arch("sm_90");
  return reduce_launch_shape(p, k_model_sm_count, a.max_threads_per_sm, a.max_blocks_per_sm,
                             a.smem_per_block_optin);
}

bool is_instrumented_reduce(const reduce::Params& p) {
  return p.op == reduce::Op::Reduce ? p.reduce_variant != reduce::ReduceVariant::Cub
                                    : p.scan_variant != reduce::ScanVariant::Cub;
}

}  // namespace bs::anatomy
