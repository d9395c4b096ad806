# The layers of cudalab, bottom to top: each one and the layers it uses directly. This table is the
# one the build and the checks read (cmake/layers.cmake says how): engine/CMakeLists.txt builds one
# library per engine module and links it to what it USES, so a module that does not list a layer
# does not link it; ctest's "layers: ..." tests (cmake/check_layers.cmake) fail when an #include in
# engine/, apps/ or lessons/ reaches a layer that is not below its own, when a private header is
# included from outside its layer, or when the table has a cycle. docs/architecture.md draws it.
#
# A use is allowed downwards only: what a layer USES, and what those use in turn.

# [SECTION] The engine (engine/NAME, library cudalab_engine_NAME)
cudalab_layer(base)                              # Status, Severity, file utilities, hardware tables
cudalab_layer(ptx       USES base)               # PTX parser, opcode table, control flow
cudalab_layer(trace     USES base)               # counters and events of a launch
cudalab_layer(compiler  USES base)               # NVRTC service, diagnostics, ptxas report
cudalab_layer(programs  USES base)               # nvcc builds, supervised child processes, sandbox
cudalab_layer(device    USES base)               # the device protocol: program <-> device process
cudalab_layer(analysis  USES trace base)         # the grading rules: pure functions of a trace
cudalab_layer(runtime   USES trace base)         # the Backend interface and the host-side Runtime
cudalab_layer(emulator  USES runtime analysis ptx compiler trace base
              PRIVATE_HEADERS state.h execute.h float_lanes.h worker_pool.h cluster.h)
cudalab_layer(gpu       USES emulator runtime compiler base)
cudalab_layer(backends  USES gpu emulator runtime base)   # make_backend(): the one factory
cudalab_layer(lessons   USES backends runtime analysis programs ptx compiler trace base)
cudalab_layer(report    USES lessons analysis compiler base)
# The device process (cudalab-device): the emulated CUDA runtime serving one program's calls.
cudalab_layer(cudart    TARGET cudalab-device USES device emulator runtime compiler trace base)
# The program's libcudart.so.13 / libcuda.so.1: a client of the device process, nothing else.
cudalab_layer(client    TARGET cudalab_cudart USES device base)
cudalab_layer(compile_helper TARGET cudalab-compile USES compiler)

# [SECTION] Clients of the engine
cudalab_layer(lesson_hosts DIR lessons TARGET cudalab_lessons USES lessons analysis compiler)  # lessons/NN/lesson.cpp
cudalab_layer(viewmodel DIR apps/gui/viewmodel TARGET cudalab_gui_model USES lessons analysis compiler trace base)
cudalab_layer(gui       DIR apps/gui PREFIXES shell panels views widgets TARGET cudalab-gui
              USES viewmodel lessons analysis compiler trace base)
cudalab_layer(cli       DIR apps/cli TARGET cudalab
              USES report lessons backends programs emulator compiler runtime trace base)
