#include "trace/trace_io.h"

#include <cstring>
#include <fstream>

namespace cudalab {

namespace {

constexpr char magic[] = "CUDALAB-TRACE";
// 3: PcCounters gained the constant-cache counters; 4: KernelInfo::cluster and
// MemSpace::distributed_shared (thread block clusters)
constexpr std::uint32_t version = 4;

struct Writer {
    std::ofstream& out;
    template <class T> void pod(const T& v) {
        out.write(reinterpret_cast<const char*>(&v), sizeof(T));
    }
    void str(const std::string& s) {
        pod(std::uint32_t(s.size()));
        out.write(s.data(), std::streamsize(s.size()));
    }
    template <class T> void vec(const std::vector<T>& v) {
        pod(std::uint64_t(v.size()));
        out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
    }
};

struct Reader {
    std::ifstream& in;
    bool ok = true;
    template <class T> void pod(T& v) {
        in.read(reinterpret_cast<char*>(&v), sizeof(T));
        ok = ok && bool(in);
    }
    void str(std::string& s) {
        std::uint32_t n = 0;
        pod(n);
        if (!ok || n > (1u << 24)) {
            ok = false;
            return;
        }
        s.resize(n);
        in.read(s.data(), n);
        ok = ok && bool(in);
    }
    template <class T> void vec(std::vector<T>& v) {
        std::uint64_t n = 0;
        pod(n);
        if (!ok || n > (1ull << 32) / sizeof(T)) {
            ok = false;
            return;
        }
        v.resize(n);
        in.read(reinterpret_cast<char*>(v.data()), std::streamsize(n * sizeof(T)));
        ok = ok && bool(in);
    }
};

}  // namespace

bool write_trace(const Trace& t, const std::string& path, std::string* error) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
        *error = "cannot write " + path;
        return false;
    }
    Writer w{out};
    out.write(magic, sizeof magic);
    w.pod(version);
    w.str(t.kernel.name);
    w.str(t.kernel.entry);
    w.pod(t.kernel.grid);
    w.pod(t.kernel.block);
    w.pod(t.kernel.dynamic_shared_bytes);
    w.pod(t.kernel.num_sms);
    w.pod(t.kernel.cluster);
    w.pod(std::uint64_t(t.pcs.size()));
    for (const auto& p : t.pcs) {
        w.pod(p.line);
        w.str(p.text);
        w.str(p.op_class);
        w.str(p.opcode);
        w.str(p.function);
    }
    w.vec(t.per_pc);
    w.vec(t.events);
    w.vec(t.accesses);
    w.vec(t.detail_blocks);
    w.vec(t.block_sm);
    w.vec(t.block_wave);
    w.pod(t.dropped_events);
    w.pod(t.barriers);
    if (!out) {
        *error = "error writing " + path;
        return false;
    }
    return true;
}

bool read_trace(const std::string& path, Trace* t, std::string* error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *error = "cannot read " + path;
        return false;
    }
    char m[sizeof magic] = {};
    in.read(m, sizeof m);
    if (!in || std::memcmp(m, magic, sizeof magic) != 0) {
        *error = path + " is not a cudalab trace";
        return false;
    }
    Reader r{in};
    std::uint32_t v = 0;
    r.pod(v);
    if (v != version) {
        *error = path + ": trace version " + std::to_string(v) + " is not supported";
        return false;
    }
    r.str(t->kernel.name);
    r.str(t->kernel.entry);
    r.pod(t->kernel.grid);
    r.pod(t->kernel.block);
    r.pod(t->kernel.dynamic_shared_bytes);
    r.pod(t->kernel.num_sms);
    r.pod(t->kernel.cluster);
    std::uint64_t n = 0;
    r.pod(n);
    if (!r.ok || n > (1u << 24)) {
        *error = path + ": damaged trace";
        return false;
    }
    t->pcs.resize(n);
    for (auto& p : t->pcs) {
        r.pod(p.line);
        r.str(p.text);
        r.str(p.op_class);
        r.str(p.opcode);
        r.str(p.function);
    }
    r.vec(t->per_pc);
    r.vec(t->events);
    r.vec(t->accesses);
    r.vec(t->detail_blocks);
    r.vec(t->block_sm);
    r.vec(t->block_wave);
    r.pod(t->dropped_events);
    r.pod(t->barriers);
    if (!r.ok) {
        *error = path + ": damaged or truncated trace";
        return false;
    }
    return true;
}

}  // namespace cudalab
