# Project-wide helpers. Target-scoped properties only: no global flags (the one exception is the
# sanitizer option below, which must reach every object file to be sound).

# CUDALAB_SANITIZE=address,undefined or =thread: build everything with those sanitizers, for the
# sanitizer steps of ./test.sh (docs/ci.md). Directory-wide on purpose: a sanitizer that sees only
# part of the program misses errors (ASan) or reports false races (TSan) at the boundary. -O1 keeps
# the sanitized build and run fast enough for CI while leaving stack traces readable.
set(CUDALAB_SANITIZE "" CACHE STRING "Sanitizers to build with: address,undefined or thread (empty: none)")
if(CUDALAB_SANITIZE)
  if(NOT CUDALAB_SANITIZE MATCHES "^(address|undefined|thread|leak)(,(address|undefined|thread|leak))*$")
    message(FATAL_ERROR "CUDALAB_SANITIZE=${CUDALAB_SANITIZE}: expected a list of address, undefined, thread, leak")
  endif()
  add_compile_options(-fsanitize=${CUDALAB_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer -O1 -g1)
  # Debian's GCC links --as-needed by default but not with -fsanitize; restore it, or every binary
  # needs the toolkit's libcuda.so stub (linked through CUDA::nvrtc) at run time, which no machine
  # without a driver has.
  add_link_options(-fsanitize=${CUDALAB_SANITIZE} -Wl,--as-needed)
endif()

# Warnings every cudalab target compiles with. CUDALAB_WERROR makes them errors: ./test.sh (CI)
# turns it on, so that a change cannot add a warning; it is off by default, so that a learner whose
# compiler is newer than CI's, and warns about more, still gets a build.
option(CUDALAB_WERROR "Warnings fail the build (./test.sh turns this on)" OFF)
function(cudalab_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(CUDALAB_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # Two of GCC's warnings fire inside libstdc++ on code that is correct, and stay warnings:
      # GCC 12's -Wrestrict on `"literal" + std::string` once inlined (a known false positive),
      # and, with the sanitizers' instrumentation, -Wmaybe-uninitialized in <regex>'s automaton
      # (the plain build keeps that one an error).
      target_compile_options(${target} PRIVATE -Wno-error=restrict)
      if(CUDALAB_SANITIZE)
        target_compile_options(${target} PRIVATE -Wno-error=maybe-uninitialized)
      endif()
    endif()
  endif()
endfunction()

# cudalab_add_lesson(ID): adds lessons/ID/lesson.cpp (the host side of a lesson) to the lessons
# library and checks that the lesson's text, exercise and solution exist, so a lesson cannot be
# half-added. The manifest (lessons/manifest.toml) gives the order; the course linter checks that
# the two agree.
function(cudalab_add_lesson id)
  set(dir "${PROJECT_SOURCE_DIR}/lessons/${id}")
  foreach(required "${dir}/lesson.cpp" "${dir}/lesson.md"
                   "${PROJECT_SOURCE_DIR}/exercises/${id}.cu"
                   "${PROJECT_SOURCE_DIR}/solutions/${id}.cu")
    if(NOT EXISTS "${required}")
      message(FATAL_ERROR "lesson ${id}: missing ${required}")
    endif()
  endforeach()
  target_sources(cudalab_lessons PRIVATE "${dir}/lesson.cpp")
endfunction()
