// nvtx_probe.cpp: a test-only NVTX tool, loaded by NVTX itself (NVTX_INJECTION64_PATH names this library), that
// records every range push and pop, so a test proves the ranges are there without Nsight Systems. NVTX calls
// InitializeInjectionNvtx2 at the process's first NVTX call; it takes the callback tables of the core and
// domain modules from NVTX's export table (nvtxDetail/nvtxTypes.h) and puts its own functions in the range
// slots. Each event is one line appended to the file BS_NVTX_LOG names:
//   domain <name>                  a domain was created (nvtxDomainCreateA)
//   push <domain> <message>        a range was pushed ("-" for the default domain)
//   pop <domain>                   a range was popped
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

std::mutex g_mutex;

void log_line(const std::string& line) {
  const char* path = std::getenv("BS_NVTX_LOG");
  if (!path || !*path) return;
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

// A domain handle is the address of its name, kept for the process's lifetime.
std::string domain_name(nvtxDomainHandle_t d) {
  return d ? *reinterpret_cast<const std::string*>(d) : std::string("-");
}

std::string message_of(const nvtxEventAttributes_t* a) {
  if (!a) return "(no attributes)";
  if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) return a->message.ascii;
  if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) return "(registered string)";
  return "(message type " + std::to_string(a->messageType) + ")";
}

int depth = 0;  // what push returns: the nesting level (per process here; NVTX wants it per thread)

nvtxDomainHandle_t NVTX_API domain_create(const char* name) {
  log_line(std::string("domain ") + (name ? name : ""));
  return reinterpret_cast<nvtxDomainHandle_t>(new std::string(name ? name : ""));
}

int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  log_line("push " + domain_name(d) + " " + message_of(a));
  return depth++;
}

int NVTX_API domain_pop(nvtxDomainHandle_t d) {
  log_line("pop " + domain_name(d));
  return --depth;
}

int NVTX_API push_ex(const nvtxEventAttributes_t* a) {
  log_line("push - " + message_of(a));
  return depth++;
}

int NVTX_API push_a(const char* message) {
  log_line(std::string("push - ") + (message ? message : ""));
  return depth++;
}

int NVTX_API pop() {
  log_line("pop -");
  return --depth;
}

template <typename F>
void install(NvtxFunctionTable table, unsigned int size, unsigned int id, F fn) {
  if (table && id < size && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

}  // namespace

extern "C" NVTX_DYNAMIC_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;
  NvtxFunctionTable core = nullptr, core2 = nullptr;
  unsigned int core_size = 0, core2_size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size) ||
      !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size))
    return 0;
  install(core, core_size, NVTX_CBID_CORE_RangePushEx, &push_ex);
  install(core, core_size, NVTX_CBID_CORE_RangePushA, &push_a);
  install(core, core_size, NVTX_CBID_CORE_RangePop, &pop);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, &domain_create);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, &domain_push);
  install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, &domain_pop);
  log_line("loaded");
  return 1;  // success: NVTX routes the calls above to this library from now on
}
