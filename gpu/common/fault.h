// fault.h: deliberate GPU faults, for testing that the app survives errors that poison the CUDA context
// (`blockscope --debug-fault-frame N`). Pure C++ declaration; never used outside tests and that flag.
#pragma once

namespace bs {

// Launches a kernel that writes through a wild pointer and waits for it: throws bs::GpuError (sticky).
void inject_illegal_address();

}  // namespace bs
