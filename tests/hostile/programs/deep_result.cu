// Lesson 02b's program, hostile: the result file its CUDA runtime writes becomes three million
// opening brackets (under the 4 MB cap; a recursive parser, or the tree it builds, would crash).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

int main() {
    if (const char* result = std::getenv("CUDALAB_RESULT"))
        if (FILE* f = std::fopen(result, "w")) {
            for (int i = 0; i < 3000000; ++i) std::fputc('[', f);
            std::fclose(f);
        }
    _exit(0);
}
