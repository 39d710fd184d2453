// builtin_source.h: a built-in kernel file as one NVRTC source. The labs' device-only kernel files
// (gpu/memory/memory_kernels.cuh, gpu/reduce/reduce_bodies.cuh) and the headers they include are embedded in
// the binary (assets/embedded.h); NVRTC has no include path into the source tree and no C++ standard headers, so
// each project #include "..." is inlined once (by file name) and <cstdint> becomes the integer types. The
// simulator runs the labs' own kernels from this text (app/memory/memory_sim.h, tests/sim).
#pragma once

#include <string>
#include <string_view>

namespace bs::kernel {

// The text of embedded file `name` ("memory_kernels.cuh") with its includes resolved, then `extra`. Throws
// std::runtime_error naming the file when a file is not embedded or includes a header NVRTC cannot have.
std::string builtin_nvrtc_source(std::string_view name, std::string_view extra = {});

}  // namespace bs::kernel
