// render_path.cpp: see render_path.h.
#include "app/render_path.h"

namespace bs {

const char* to_string(RenderPath p) {
  switch (p) {
    case RenderPath::Interop:
      return "CUDA + interop";
    case RenderPath::HostCopy:
      return "CUDA + host copy";
    case RenderPath::Cpu:
      return "CPU";
  }
  return "?";
}

const char* cli_name(PathRequest r) {
  return k_path_request_names.c_name(r);
}

std::optional<PathRequest> parse_path_request(std::string_view s) {
  return k_path_request_names.parse(s);
}

PathDecision decide_path(PathRequest request, bool cuda_available, const std::string& cuda_reason,
                         const std::string& gl_renderer) {
  PathDecision d;
  if (request == PathRequest::Cpu) {
    d.path = RenderPath::Cpu;
    d.reason = "forced by --render-path cpu";
    return d;
  }
  if (!cuda_available) {
    d.path = RenderPath::Cpu;
    d.reason = "no CUDA device: " + cuda_reason;
    if (request != PathRequest::Auto)
      d.reason = std::string("--render-path ") + cli_name(request) + " needs CUDA; " + d.reason;
    return d;
  }
  if (request == PathRequest::Host) {
    d.path = RenderPath::HostCopy;
    d.reason = "forced by --render-path host";
    return d;
  }
  // Auto or Interop: interop is worth an attempt whatever the renderer; a software renderer will fail it, and
  // that failure is what the user should see explained.
  d.path = RenderPath::Interop;
  d.try_interop = true;
  d.reason = request == PathRequest::Interop ? "forced by --render-path interop"
                                             : "GL renderer " + gl_renderer + " shares memory with CUDA";
  return d;
}

PathDecision settle_interop(const PathDecision& d, bool registered, const std::string& register_error,
                            const std::string& gl_renderer, bool gl_software) {
  PathDecision out = d;
  out.try_interop = false;
  if (registered) return out;
  out.path = RenderPath::HostCopy;
  if (gl_software)
    out.reason = "GL renderer is " + gl_renderer + ", not the CUDA device: interop registration failed (" +
                 register_error + "); copying through the host";
  else
    out.reason = "interop registration failed on GL renderer " + gl_renderer + " (" + register_error +
                 "); copying through the host";
  return out;
}

}  // namespace bs
