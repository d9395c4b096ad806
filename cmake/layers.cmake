# cudalab_layer(): how engine/layers.cmake declares one layer of the build. Included both by the
# build (engine/CMakeLists.txt links one library per engine module to the modules it USES) and by
# the include check (cmake/check_layers.cmake, run by ctest), so the two read one table.
#
#   cudalab_layer(NAME [DIR folder] [PREFIXES p...] [TARGET t] [USES layer...] [PRIVATE_HEADERS file...])
#
# DIR      the folder its files are in, relative to the repository (default engine/NAME); a file
#          belongs to the layer with the longest DIR that contains it.
# PREFIXES the first folder of the #include "prefix/..." lines that name its headers (default NAME).
# TARGET   the CMake target its files build (default cudalab_engine_NAME)
# USES     the layers it may use directly; what they use, it may use too (the DAG is transitive).
# PRIVATE_HEADERS  headers of its own (file names) no other layer may include.
set(CUDALAB_LAYERS "")
macro(cudalab_layer name)
  cmake_parse_arguments(_layer "" "DIR;TARGET" "PREFIXES;USES;PRIVATE_HEADERS" ${ARGN})
  if(_layer_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "engine/layers.cmake: cudalab_layer(${name}): unexpected ${_layer_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT _layer_DIR)
    set(_layer_DIR "engine/${name}")
  endif()
  if(NOT _layer_PREFIXES)
    set(_layer_PREFIXES "${name}")
  endif()
  if(NOT _layer_TARGET)
    set(_layer_TARGET "cudalab_engine_${name}")
  endif()
  list(APPEND CUDALAB_LAYERS "${name}")
  set(CUDALAB_LAYER_${name}_TARGET "${_layer_TARGET}")
  set(CUDALAB_LAYER_${name}_DIR "${_layer_DIR}")
  set(CUDALAB_LAYER_${name}_PREFIXES "${_layer_PREFIXES}")
  set(CUDALAB_LAYER_${name}_USES "${_layer_USES}")
  set(CUDALAB_LAYER_${name}_PRIVATE "${_layer_PRIVATE_HEADERS}")
endmacro()

# cudalab_layer_closure(NAME OUT): every layer NAME may use (directly or through others), or a
# fatal error naming the cycle when the table has one.
function(cudalab_layer_closure name out)
  set(done "")
  _cudalab_layer_visit("${name}" "${name}")
  set(${out} "${done}" PARENT_SCOPE)
endfunction()
# Depth first from `layer`; `stack` is the path that led here, `done` (the caller's) what is
# already reached.
function(_cudalab_layer_visit layer stack)
  foreach(used ${CUDALAB_LAYER_${layer}_USES})
    if(NOT DEFINED CUDALAB_LAYER_${used}_DIR)
      message(FATAL_ERROR "engine/layers.cmake: layer '${layer}' uses '${used}', which is not declared")
    endif()
    if(used IN_LIST stack)
      string(REPLACE ";" " -> " cycle "${stack};${used}")
      message(FATAL_ERROR "engine/layers.cmake: the layers form a cycle: ${cycle}")
    endif()
    if(NOT used IN_LIST done)
      _cudalab_layer_visit("${used}" "${stack};${used}")
      list(APPEND done "${used}")
    endif()
  endforeach()
  set(done "${done}" PARENT_SCOPE)
endfunction()
