// Lesson 02b's program, hostile: it leaves a FIFO in place of the result file its CUDA runtime
// writes (a reader that opens it blocks forever), and links to a file of the grader's (@VICTIM@)
// in place of the timeline and of the in.bin the lesson writes again before the next run.
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

int main() {
    if (const char* result = std::getenv("CUDALAB_RESULT")) {
        unlink(result);
        mkfifo(result, 0600);
    }
    if (const char* timeline = std::getenv("CUDALAB_TIMELINE")) {
        unlink(timeline);
        symlink("@VICTIM@", timeline);
    }
    unlink("in.bin");
    symlink("@VICTIM@", "in.bin");
    symlink("@VICTIM@", ".cudalab-timeline.json");
    symlink("@VICTIM@", "out.bin");
    _exit(0);  // not exit(): the runtime's own exit handler would write its files again
}
