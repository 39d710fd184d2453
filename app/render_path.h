// render_path.h: the fallback ladder. 1) CUDA compute + interop, 2) CUDA compute + host copy into the
// texture, 3) CPU compute. Pure decision logic (no CUDA, no GL calls), so it is unit-tested on any machine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/enum_names.h"

namespace bs {

enum class RenderPath { Interop, HostCopy, Cpu };
enum class PathRequest { Auto, Interop, Host, Cpu };

const char* to_string(RenderPath p);  // "CUDA + interop", ...
// --render-path's names.
inline constexpr auto k_path_request_names = enum_names<PathRequest>({{PathRequest::Auto, "auto"},
                                                                      {PathRequest::Interop, "interop"},
                                                                      {PathRequest::Host, "host"},
                                                                      {PathRequest::Cpu, "cpu"}});
const char* cli_name(PathRequest r);  // k_path_request_names
std::optional<PathRequest> parse_path_request(std::string_view s);

struct PathDecision {
  RenderPath path = RenderPath::Cpu;
  std::string reason;
  bool try_interop = false;  // the caller should attempt registration before settling
  std::string mechanism;     // for interop: how CUDA reaches GL's memory
};

// Decides before any interop attempt, from the request, the CUDA device and the GL renderer. Interop is tried
// whatever the renderer: a software renderer fails the attempt, and settle_interop() explains that failure.
PathDecision decide_path(PathRequest request, bool cuda_available, const std::string& cuda_reason,
                         const std::string& gl_renderer);
// Settles a decision that asked to try interop, given the attempt's outcome.
PathDecision settle_interop(const PathDecision& d, bool registered, const std::string& register_error,
                            const std::string& gl_renderer, bool gl_software);

}  // namespace bs
