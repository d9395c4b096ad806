// The fake runtime's device (fake_cudart.cpp): `cudalab run` starts it as cudalab-device FD. It
// answers the program's "settings?" from its own environment, counts the launches and the live
// allocations the program reports, and when the program has gone writes the result and timeline
// files as the real device does. CUDALAB_FAKE_DEVICE_SCRIPT, when set, is a shell command run
// then instead (with the same environment): a test's hostile "device" writing hostile files, to
// show the runner reads whatever it finds safely.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const int fd = std::atoi(argv[1]);
    int launches = 0, live = 0;
    std::string line;
    char c;
    while (::read(fd, &c, 1) == 1) {
        if (c != '\n') {
            line += c;
            continue;
        }
        if (line == "launch") ++launches;
        else if (line == "malloc") ++live;
        else if (line == "free") --live;
        else if (line == "settings?") {
            const char* d = std::getenv("CUDALAB_DEVICES");
            const char* v = std::getenv("CUDALAB_DRIVER_VERSION");
            const std::string answer = std::to_string(d ? std::atoi(d) : 1) + " " +
                                       std::to_string(v ? std::atoi(v) : 13000) + "\n";
            (void)!::write(fd, answer.data(), answer.size());
        }
        line.clear();
    }
    if (const char* script = std::getenv("CUDALAB_FAKE_DEVICE_SCRIPT"); script && *script)
        return std::system(script) == 0 ? 0 : 1;
    if (const char* path = std::getenv("CUDALAB_RESULT")) {
        if (FILE* f = std::fopen(path, "w")) {
            const char* devices = std::getenv("CUDALAB_DEVICES");
            const char* driver = std::getenv("CUDALAB_DRIVER_VERSION");
            const char* budget = std::getenv("CUDALAB_BUDGET");
            std::fprintf(f,
                         "{\"faults\":[],\"leaks\":[%s],\"unsupported\":[],\"fake\":true,"
                         "\"launches\":%d,"
                         "\"devices\":\"%s\",\"driver_version\":\"%s\",\"budget\":\"%s\","
                         "\"trace\":\"%s\"}\n",
                         live ? "{\"count\":1}" : "", launches, devices ? devices : "",
                         driver ? driver : "", budget ? budget : "",
                         std::getenv("CUDALAB_TRACE") ? "set" : "");
            std::fclose(f);
        }
    }
    if (const char* path = std::getenv("CUDALAB_TIMELINE")) {
        if (FILE* f = std::fopen(path, "w")) {
            std::fprintf(f,
                         "{\"traceEvents\":[{\"name\":\"fake\",\"ph\":\"X\",\"ts\":0,\"dur\":1,"
                         "\"pid\":0,\"tid\":0,\"args\":{\"launches\":%d}}]}\n",
                         launches);
            std::fclose(f);
        }
    }
    return 0;
}
