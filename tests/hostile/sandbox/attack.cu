// A submission that attacks the grader from inside the sandbox (tests/hostile/run_sandbox.py runs
// each attack as its own case). Every attempt prints "NAME: refused (why)" or "NAME: ALLOWED".
//   attack caps | mounts | core_pattern | ptrace_me | ptrace_child | ptrace_one | keyring |
//          namespaces | kernel | write FILE MB | read FILE | ls DIR | append FILE TEXT | env |
//          launch
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <string>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

static int allowed = 0;

// rc < 0 with errno: refused; anything else: the attack got through.
static void said(const char* what, long rc) {
    if (rc < 0) std::printf("%s: refused (%s)\n", what, std::strerror(errno));
    else {
        std::printf("%s: ALLOWED\n", what);
        ++allowed;
    }
}

__global__ void add_one(int* x) { x[threadIdx.x] += 1; }

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "caps") {
        std::printf("uid=%d gid=%d euid=%d\n", int(getuid()), int(getgid()), int(geteuid()));
        FILE* f = std::fopen("/proc/self/status", "r");
        char line[256];
        while (f && std::fgets(line, sizeof line, f))
            if (!std::strncmp(line, "Cap", 3) || !std::strncmp(line, "NoNewPrivs", 10) ||
                !std::strncmp(line, "Seccomp:", 8) || !std::strncmp(line, "Groups", 6))
                std::printf("%s", line);
        if (f) std::fclose(f);
    } else if (what == "mounts") {
        said("umount /tmp", umount2("/tmp", MNT_DETACH));
        said("mount tmpfs on /tmp", mount("none", "/tmp", "tmpfs", 0, nullptr));
        said("remount / writable", mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND, nullptr));
        said("remount /usr writable", mount("/usr", "/usr", nullptr, MS_REMOUNT | MS_BIND, nullptr));
        said("bind / onto /tmp", mount("/", "/tmp", nullptr, MS_BIND | MS_REC, nullptr));
        said("chroot", chroot("/tmp"));
        std::string escape = "/usr/cudalab-escape-" + std::to_string(getpid());
        int fd = open(escape.c_str(), O_CREAT | O_WRONLY, 0644);
        said("create a file in /usr", fd);
        if (fd >= 0) close(fd);
    } else if (what == "core_pattern") {
        int fd = open("/proc/sys/kernel/core_pattern", O_WRONLY);
        said("open core_pattern for writing", fd);
        if (fd >= 0) {
            said("write core_pattern", write(fd, "|/bin/false", 11));
            close(fd);
        }
        fd = open("/proc/sysrq-trigger", O_WRONLY);
        said("open sysrq-trigger for writing", fd);
    } else if (what == "ptrace_me") {
        said("ptrace(PTRACE_TRACEME)", ptrace(PTRACE_TRACEME, 0, nullptr, nullptr));
        raise(SIGSTOP);  // a traced process would wait here for a tracer that never comes
        std::printf("continued after SIGSTOP\n");
    } else if (what == "ptrace_child") {
        pid_t child = fork();
        if (child == 0) {
            pause();
            _exit(0);
        }
        said("ptrace(PTRACE_ATTACH) of a child", ptrace(PTRACE_ATTACH, child, nullptr, nullptr));
        said("ptrace(PTRACE_SEIZE) of a child", ptrace(PTRACE_SEIZE, child, nullptr, nullptr));
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
    } else if (what == "ptrace_one") {
        said("ptrace(1, 1)", syscall(SYS_ptrace, 1, 1, 0, 0));
        said("ptrace(PTRACE_ATTACH, 1)", syscall(SYS_ptrace, PTRACE_ATTACH, 1, 0, 0));
    } else if (what == "keyring") {
        said("keyctl(KEYCTL_GET_KEYRING_ID)", syscall(SYS_keyctl, 0, -3, 0));
        said("add_key", syscall(SYS_add_key, "user", "cudalab", "x", 1, -3));
        said("request_key", syscall(SYS_request_key, "user", "cudalab", nullptr, 0));
    } else if (what == "namespaces") {
        said("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
        said("unshare(CLONE_NEWNS)", unshare(CLONE_NEWNS));
        said("clone(CLONE_NEWUSER)", syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0) == 0
                                         ? (_exit(0), 0L)
                                         : -1L);
        int fd = open("/proc/1/ns/mnt", O_RDONLY);
        said("setns", fd >= 0 ? setns(fd, 0) : -1);
    } else if (what == "kernel") {
        said("bpf", syscall(SYS_bpf, 0, nullptr, 0));
        said("perf_event_open", syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0));
        said("userfaultfd", syscall(SYS_userfaultfd, 0));
        said("personality(ADDR_NO_RANDOMIZE)", personality(ADDR_NO_RANDOMIZE) < 0 ? -1 : 0);
        said("init_module", syscall(SYS_init_module, nullptr, 0, ""));
        said("kexec_load", syscall(SYS_kexec_load, 0, 0, nullptr, 0));
        said("reboot", syscall(SYS_reboot, 0, 0, 0, nullptr));
        said("open_by_handle_at", syscall(SYS_open_by_handle_at, AT_FDCWD, nullptr, 0));
        said("io_uring_setup", syscall(SYS_io_uring_setup, 1, nullptr));
    } else if (what == "write" && argc > 3) {
        FILE* f = std::fopen(argv[2], "wb");
        if (!f) {
            std::printf("cannot open %s: %s\n", argv[2], std::strerror(errno));
            return 1;
        }
        static char mb[1 << 20];
        std::memset(mb, 'x', sizeof mb);
        long n = std::atol(argv[3]), done = 0;
        for (; done < n; ++done)
            if (std::fwrite(mb, 1, sizeof mb, f) != sizeof mb || std::fflush(f) != 0) break;
        const int e = errno;
        std::fclose(f);
        std::printf("wrote %ld MB of %ld%s%s\n", done, n, done < n ? ": " : "",
                    done < n ? std::strerror(e) : "");
        return done < n ? 1 : 0;
    } else if (what == "read" && argc > 2) {
        FILE* f = std::fopen(argv[2], "rb");
        if (!f) {
            std::printf("cannot read %s: %s\n", argv[2], std::strerror(errno));
            return 1;
        }
        char buf[200] = {};
        size_t n = std::fread(buf, 1, sizeof buf - 1, f);
        std::printf("read %zu bytes of %s: %s\n", n, argv[2], buf);
        std::fclose(f);
    } else if (what == "ls" && argc > 2) {
        DIR* d = opendir(argv[2]);
        if (!d) {
            std::printf("cannot list %s: %s\n", argv[2], std::strerror(errno));
            return 1;
        }
        while (dirent* e = readdir(d)) std::printf("entry %s\n", e->d_name);
        closedir(d);
    } else if (what == "append" && argc > 3) {
        FILE* f = std::fopen(argv[2], "a");
        if (!f) {
            std::printf("cannot append to %s: %s\n", argv[2], std::strerror(errno));
            return 1;
        }
        std::fprintf(f, "%s\n", argv[3]);
        std::fclose(f);
        std::printf("appended to %s\n", argv[2]);
    } else if (what == "env") {
        for (char** e = environ; *e; ++e) std::printf("env %s\n", *e);
    } else if (what == "launch") {
        int* x = nullptr;
        cudaMalloc(&x, 32 * sizeof(int));
        cudaMemset(x, 0, 32 * sizeof(int));
        add_one<<<1, 32>>>(x);
        int h[32];
        cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost);
        std::printf("launch: %s, h[31] = %d\n", cudaGetErrorString(cudaGetLastError()), h[31]);
        return h[31] == 1 ? 0 : 1;
    } else {
        std::printf("unknown attack '%s'\n", what.c_str());
        return 2;
    }
    std::printf("allowed: %d\n", allowed);
    return allowed ? 3 : 0;
}
