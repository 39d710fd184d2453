// nccl_loader.h: NCCL loaded at run time (dlopen libnccl.so.2), so blockscope starts and runs on one GPU, or
// on none, where NCCL is missing. Pure C++: what the bench and the UI ask.
#pragma once

#include <optional>
#include <string>

namespace bs::multigpu {

// nullopt when NCCL loaded and every function used was found; otherwise why not (for the panel and the bench).
std::optional<std::string> nccl_unavailable();
// "2.28.3", or "" when NCCL is not available.
std::string nccl_version();

}  // namespace bs::multigpu
