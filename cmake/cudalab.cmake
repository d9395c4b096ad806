# Project-wide helpers. Target-scoped properties only: no global flags.

# Warnings every cudalab target compiles with.
function(cudalab_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
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
