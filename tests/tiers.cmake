# Which tests each step of ./test.sh runs, set here and only here (cmake/test_tiers.cmake says how;
# docs/ci.md's table of what each step runs is checked against these lists by the test
# `ci: docs/ci.md lists what each step runs`).
# Every test gets the label `quick` (./test.sh quick, the edit loop) and `asan` (the ASan+UBSan
# step) unless a rule below leaves it out; the plain suite runs every test, the TSan step the
# cases labelled `tsan` (cudalab_thread_tests, tests/CMakeLists.txt).
#
# Left out of ./test.sh quick, which is for the edit loop (about 2 minutes on 2 cores, measured in
# docs/ci.md); the full run keeps them all:
set(CUDALAB_NOT_QUICK_LABELS programs gpu)  # the whole programs (nvcc), the GPU suite
set(CUDALAB_NOT_QUICK_NAMES
  # the rest of what builds or runs programs with nvcc: program lessons, their corpora and views,
  # `cudalab build` and `run`, the sandbox's
  "^program lessons:"
  "^course linter: every solution passes"
  "^check all --format json"
  "^corpus: the solutions. performance figures"
  "^run PROG.cu on the emulated runtime"
  "^(streams|pages) view: "
  "^graph view and page map"
  "^gui_screenshot_(streams|program_launch)$"
  "^build: "
  "^cudalab build "
  "^run: "
  "^run --exe"
  "^sandbox: "
  # the corpora run through the CLI, a process or a class each (over a minute of CPU together)
  "^hostile"
  "^grade/"
  # the slowest single tests: clang-format over every file, every lesson's JUnit report, every
  # lesson picture
  "^formatting: "
  "^--format junit"
  "^every lesson picture in docs/images/lessons")
# Left out of the ASan+UBSan step: the GPU suite (its binary is not built there) and every test
# that runs an nvcc-built, uninstrumented program on cudalab's emulated libcudart.so.13, which an
# instrumented library would stop (the ASan runtime must be loaded first; docs/ci.md says why it is
# not preloaded): the whole programs (label `programs`), the tests that check program lessons (02b,
# 14: their learners' programs load that library) and the probes that run a learner's program on it.
set(CUDALAB_NOT_ASAN_LABELS programs gpu)
set(CUDALAB_NOT_ASAN_NAMES
  "^program lessons:"
  "^course linter: every solution passes"
  "^check all --format json"
  "^corpus: the solutions. performance figures"
  "^run PROG.cu on the emulated runtime"
  "^hostile/program_"
  "^hostile-sandbox/no_sandbox_refused"
  "^grade/hostile_program_pairs"
  "^grade/hostile_bundle_program")
