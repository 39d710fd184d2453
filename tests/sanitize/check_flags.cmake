# Reads the compile commands of the sanitizer build configured by SanitizerBuild.Configures and checks one of
# our own C++ files (gpu/kernel/diagnostics.cpp, whose std::regex provokes the libstdc++ warning) gets
# -fsanitize, keeps -Werror, and has only -Wmaybe-uninitialized made non-fatal.
file(READ ${BUILD}/compile_commands.json commands)
string(REGEX MATCH "\"command\": \"[^\"]*gpu/kernel/diagnostics\\.cpp\"" entry "${commands}")
if(NOT entry)
  message(FATAL_ERROR "no compile command for gpu/kernel/diagnostics.cpp in ${BUILD}/compile_commands.json")
endif()
foreach(flag -fsanitize=address,undefined -Werror -Wno-error=maybe-uninitialized)
  string(FIND "${entry}" "${flag} " at)
  if(at EQUAL -1)
    message(FATAL_ERROR "sanitizer build: '${flag}' missing from: ${entry}")
  endif()
endforeach()
string(REGEX MATCHALL "-Wno-error[^ ]*" relaxed "${entry}")
if(NOT relaxed STREQUAL "-Wno-error=maybe-uninitialized")
  message(FATAL_ERROR "sanitizer build: only -Wmaybe-uninitialized may be non-fatal, found: ${relaxed}")
endif()
message(STATUS "sanitizer build flags ok: ${entry}")
