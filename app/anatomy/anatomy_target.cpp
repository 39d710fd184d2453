// anatomy_target.cpp: the helpers every lab's AnatomyTarget shares (anatomy_target.h).
#include "app/anatomy/anatomy_target.h"

#include <algorithm>

#include "core/error.h"

namespace bs {

void finish_record(AnatomyRecord& r) {
  if (static_cast<int64_t>(r.blocks.size()) != r.grid.count())
    throw InvalidRequest("the instrumented run recorded " + std::to_string(r.blocks.size()) + " of " +
                         std::to_string(r.grid.count()) + " blocks");
  r.timeline = anatomy::build_timeline(r.blocks, r.sm_count, std::max(r.blocks_per_sm, 1));
}

BlockSizeTimes time_block_sizes(JobControl& ctl, std::string label, const std::vector<int>& threads,
                                const std::function<double(size_t i)>& ms_of) {
  BlockSizeTimes result;
  result.label = std::move(label);
  for (size_t i = 0; i < threads.size(); ++i) {
    if (ctl.cancelled()) throw JobCancelled{};
    const double ms = ms_of(i);
    result.threads.push_back(threads[i]);
    result.ms.push_back(ms);
    ctl.set_progress(static_cast<double>(i + 1) / static_cast<double>(threads.size()));
  }
  return result;
}

}  // namespace bs
