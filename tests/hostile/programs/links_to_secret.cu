// Lesson 02b's program, hostile: the result and timeline files its CUDA runtime writes become links
// to a file of the grader's (@SECRET@) that holds JSON of the right shape: a grader that followed
// them would print the file in its report.
#include <cstdlib>
#include <unistd.h>

int main() {
    for (const char* name : {"CUDALAB_RESULT", "CUDALAB_TIMELINE"})
        if (const char* path = std::getenv(name)) {
            unlink(path);
            symlink("@SECRET@", path);
        }
    symlink("@SECRET@", "out.bin");
    _exit(0);
}
