# Generates the GLAD loader (GL 4.5 core + EGL 1.5 with the few extensions blockscope uses) at configure time
# with Debian's python3-glad. --reproducible uses the Khronos specs bundled with the package: no download.
find_program(GLAD_EXECUTABLE glad REQUIRED)
set(GLAD_OUT "${CMAKE_BINARY_DIR}/glad")
set(GLAD_EXTENSIONS
    EGL_EXT_platform_base EGL_EXT_platform_device EGL_EXT_device_base EGL_EXT_device_enumeration
    EGL_EXT_device_query EGL_MESA_platform_surfaceless EGL_KHR_surfaceless_context EGL_NV_device_cuda
    EGL_KHR_create_context GL_EXT_memory_object GL_EXT_memory_object_fd)
list(JOIN GLAD_EXTENSIONS "," GLAD_EXTENSIONS_CSV)
set(GLAD_STAMP "${GLAD_OUT}/stamp.txt")
set(GLAD_ARGS --quiet --reproducible --api gl:core=4.5,egl=1.5 --extensions ${GLAD_EXTENSIONS_CSV}
    --out-path ${GLAD_OUT} c --loader)
set(GLAD_SIGNATURE "${GLAD_ARGS}")
if(NOT EXISTS "${GLAD_STAMP}" OR NOT EXISTS "${GLAD_OUT}/src/gl.c")
  set(GLAD_NEEDS_RUN TRUE)
else()
  file(READ "${GLAD_STAMP}" GLAD_OLD_SIGNATURE)
  if(NOT GLAD_OLD_SIGNATURE STREQUAL GLAD_SIGNATURE)
    set(GLAD_NEEDS_RUN TRUE)
  endif()
endif()
if(GLAD_NEEDS_RUN)
  message(STATUS "Generating GLAD loader in ${GLAD_OUT}")
  execute_process(COMMAND ${GLAD_EXECUTABLE} ${GLAD_ARGS} RESULT_VARIABLE glad_rc OUTPUT_QUIET ERROR_VARIABLE glad_err)
  if(NOT glad_rc EQUAL 0)
    message(FATAL_ERROR "glad failed (${glad_rc}): ${glad_err}")
  endif()
  file(WRITE "${GLAD_STAMP}" "${GLAD_SIGNATURE}")
endif()
add_library(bs_glad STATIC "${GLAD_OUT}/src/gl.c" "${GLAD_OUT}/src/egl.c")
target_include_directories(bs_glad SYSTEM PUBLIC "${GLAD_OUT}/include")
target_link_libraries(bs_glad PUBLIC ${CMAKE_DL_LIBS})
set_target_properties(bs_glad PROPERTIES POSITION_INDEPENDENT_CODE ON)
