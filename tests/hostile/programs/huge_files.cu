// Lesson 02b's program, hostile: the timeline its CUDA runtime writes becomes a sparse file of
// 200 MB, and out.bin one of 1 GB: each must be refused unread, the cap named.
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

int main() {
    if (const char* timeline = std::getenv("CUDALAB_TIMELINE")) {
        int fd = open(timeline, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0 && ftruncate(fd, 200l << 20) == 0) close(fd);
    }
    int fd = open("out.bin", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0 && ftruncate(fd, 1l << 30) == 0) close(fd);
    _exit(0);
}
