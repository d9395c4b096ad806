# The tiers of the test suite: which tests each step of ./test.sh runs (docs/ci.md). Each step
# selects one label: `./test.sh quick` runs `-L ^quick$`, the ASan+UBSan step `-L ^asan$`, the TSan
# step `-L ^tsan$`; the plain suite runs every test. tests/tiers.cmake holds the rules (the
# CUDALAB_NOT_* lists: by a test's own label, or by a regular expression on its name); every folder
# that adds tests gives them their tier labels with cudalab_tier_label_tests() at its end, and the
# doctest cases, whose names exist only once the test binary is built, get theirs when ctest reads
# them (cudalab_tier_label_doctest_cases). That script includes this file too, so the first function
# is written for CTest's script mode as well (no IN_LIST, no policies).

# cudalab_tier_labels(NAME LABELS OUT): OUT = LABELS (the test's own) plus the tier labels of the
# test NAME: `quick` unless a CUDALAB_NOT_QUICK_* rule names it, `asan` unless a
# CUDALAB_NOT_ASAN_* rule does.
function(cudalab_tier_labels name own_labels out)
  set(quick 1)
  set(asan 1)
  foreach(label ${own_labels})
    list(FIND CUDALAB_NOT_QUICK_LABELS "${label}" found)
    if(NOT found EQUAL -1)
      set(quick 0)
    endif()
    list(FIND CUDALAB_NOT_ASAN_LABELS "${label}" found)
    if(NOT found EQUAL -1)
      set(asan 0)
    endif()
  endforeach()
  foreach(pattern ${CUDALAB_NOT_QUICK_NAMES})
    if(name MATCHES "${pattern}")
      set(quick 0)
    endif()
  endforeach()
  foreach(pattern ${CUDALAB_NOT_ASAN_NAMES})
    if(name MATCHES "${pattern}")
      set(asan 0)
    endif()
  endforeach()
  set(labels ${own_labels})
  if(quick)
    list(APPEND labels quick)
  endif()
  if(asan)
    list(APPEND labels asan)
  endif()
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()

# The rest serves the configure step (defining it in ctest's script is harmless).
set(CUDALAB_TIER_LISTS CUDALAB_NOT_QUICK_LABELS CUDALAB_NOT_QUICK_NAMES CUDALAB_NOT_ASAN_LABELS
    CUDALAB_NOT_ASAN_NAMES)

# The tier labels of every test the current folder has added so far (call it at the folder's end).
function(cudalab_tier_label_tests)
  get_property(added_tests DIRECTORY PROPERTY TESTS)
  foreach(test_name ${added_tests})
    get_test_property("${test_name}" LABELS own_labels)
    if(NOT own_labels)
      set(own_labels "")
    endif()
    cudalab_tier_labels("${test_name}" "${own_labels}" tier_labels)
    set_tests_properties("${test_name}" PROPERTIES LABELS "${tier_labels}")
  endforeach()
endfunction()

# The doctest cases of TARGET (doctest_discover_tests, called before this) get their tier labels
# when ctest reads them: a script after doctest's, which names them in <TARGET>_TESTS.
function(cudalab_tier_label_doctest_cases target)
  set(text "# Written by cmake/test_tiers.cmake: the tier labels of ${target}'s doctest cases.\n")
  foreach(list ${CUDALAB_TIER_LISTS})
    string(APPEND text "set(${list}")
    foreach(item ${${list}})
      string(APPEND text " [==[${item}]==]")
    endforeach()
    string(APPEND text ")\n")
  endforeach()
  string(APPEND text "include([==[${CMAKE_CURRENT_FUNCTION_LIST_FILE}]==])\n"
         "foreach(test_name \${${target}_TESTS})\n"
         "  cudalab_tier_labels(\"\${test_name}\" \"\" tier_labels)\n"
         "  set_tests_properties(\"\${test_name}\" PROPERTIES LABELS \"\${tier_labels}\")\n"
         "endforeach()\n")
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}_tiers.cmake")
  file(WRITE "${script}" "${text}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()

# The rules as JSON, for scripts/ci_steps.py (docs/ci.md's table is written and checked from them).
function(cudalab_tier_write_rules file)
  set(json "{}")
  foreach(list ${CUDALAB_TIER_LISTS})
    set(items "[]")
    set(index 0)
    foreach(item ${${list}})
      string(REPLACE "\\" "\\\\" item "${item}")
      string(REPLACE "\"" "\\\"" item "${item}")
      string(JSON items SET "${items}" ${index} "\"${item}\"")
      math(EXPR index "${index} + 1")
    endforeach()
    string(JSON json SET "${json}" ${list} "${items}")
  endforeach()
  file(WRITE "${file}" "${json}\n")
endfunction()
