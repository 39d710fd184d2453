// export.h: a submission taken out of blockscope: a standalone CUDA program (NAME.cu with a main that
// allocates, fills the inputs as the simulator's tests do, launches the submission and the reference kernel on
// the GPU for every test of the exercise, compares them with the exercise's tolerance, times the submission
// with CUDA events and exits 0 only when every test passes; plus a CMakeLists.txt) and a CuPy snippet (the
// same kernels as cupy.RawModule, launched and compared on the first visible test), to take back to the
// tutorials' Python. Plain text generation; nothing here needs CUDA.
#pragma once

#include <string>

#include "gpu/exercise/exercise.h"

namespace bs::exercise {

struct Export {
  std::string program;  // NAME.cu
  std::string cmake;    // CMakeLists.txt
  std::string cupy;     // NAME_cupy.py
  std::string error;    // a test whose sizes cannot be evaluated (a broken contract)
};

// `source` is the submission's text; the block is the exercise's default.
Export export_exercise(const Exercise& e, const std::string& source);

}  // namespace bs::exercise
