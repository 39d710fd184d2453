// reduce_work.h: the reduction and scan work model for the roofline (core/work_model.h), the same for every
// variant (the minimum, whatever order the variant adds in): a sum of n elements is n - 1 adds and reads the
// n 4-byte elements once, writing one; a scan is n - 1 adds, reading n and writing n elements (Hillis-Steele
// does n log n adds and Blelloch about 2n: the extra work is what the roofline shows as lower throughput).
// Integer adds count as operations in the FLOP column.
#pragma once

#include "core/work_model.h"
#include "gpu/reduce/reduce.h"

namespace bs::reduce {

inline work::Work run_work(Op op, int64_t n) {
  const double count = static_cast<double>(n);
  work::Work w;
  w.flops = n > 0 ? count - 1 : 0;
  w.read_bytes = 4.0 * count;
  w.write_bytes = op == Op::Reduce ? 4.0 : 4.0 * count;
  return w;
}

}  // namespace bs::reduce
