// Lesson 20 — multi-GPU. A program lesson (lessons/program_lesson.h): the learner's file is a
// whole program that all-reduces one vector per GPU, every GPU it sees (G of them), run as
// `./program in.bin out.bin`. On the emulator G is 4 (CUDALAB_DEVICES=4; a CUDALAB_DEVICES of 2
// to 8 in the checker's environment picks another G); with --backend gpu on a machine with 2 or
// more GPUs it is the real ones, the first 4 at most; with one GPU it is 4 emulated ones again,
// and the report says so. The lesson checks every GPU's result, that the vectors moved between
// the GPUs by peer copies and not through the host, and compares the all-reduce's time with the
// ring's bandwidth bound:
//     2 (G - 1) / G x bytes per GPU / link bandwidth
// The link's bandwidth: on the emulator the device model's NVLink (450 GB/s each way); on real
// GPUs what a plain cudaMemcpyPeerAsync of one vector reaches on this machine, measured by the
// lesson's own program (peer-bandwidth.cu) on the same GPUs just before, so the bound is one the
// machine can meet whatever connects its GPUs (NVLink, NVSwitch, PCIe).
//
// The time measured is the device time of the all-reduce: the union of every kernel and every
// copy between GPUs on the timeline (the input and output copies over PCIe are left out, and so
// are gaps in which no GPU works at all). The emulated run models a host that issues work in no
// time (CUDALAB_HOST_CLOCK=free): what is measured is what the program's streams and events
// allow. On GPUs the times are CUPTI's.
#include <cstdlib>
#include <cstring>

#include "lessons/program_lesson.h"

namespace {

using cudalab::lessons::excerpt;
using cudalab::lessons::Interval;
using cudalab::lessons::ProgramRun;
using cudalab::lessons::ProgramSession;
using cudalab::lessons::RunSettings;

constexpr int kEmulatedGpus = 4;  // the lesson's G on the emulator
constexpr int kMaxGpus = 8;       // the most the lesson's programs handle (kMaxGpus in them)
constexpr int kMaxRealGpus = 4;   // on a bigger machine, the first 4: the same figures as here
constexpr double kNvlink =
    450e9;  // engine/cudart/device_model.h: one direction of one GPU's NVLink

// A number in a timeline event's args: the emulated runtime and the CUPTI library write numbers,
// but the file comes from the learner's process, so anything else reads as `none`.
std::int64_t arg_number(const cudalab::programs::TimelineEvent& e, const char* key,
                        std::int64_t none = 0) {
    if (!e.args.is_object() || !e.args.contains(key)) return none;
    const auto& v = e.args[key];
    if (v.is_number_unsigned())
        return std::int64_t(std::min<std::uint64_t>(v.get<std::uint64_t>(), INT64_MAX));
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_string()) {
        const std::string t = v.get<std::string>();
        char* end = nullptr;
        const long long x = std::strtoll(t.c_str(), &end, 10);
        if (!t.empty() && end && *end == 0) return x;
    }
    return none;
}

bool is_pcie(const std::string& name) {
    return name.find("HtoD") != std::string::npos || name.find("DtoH") != std::string::npos ||
           name.find("HtoH") != std::string::npos;
}

std::string mb(double bytes) {
    char t[32];
    std::snprintf(t, sizeof t, "%.1f MB", bytes / 1e6);
    return t;
}

std::string gbs(double bytes_per_second) {
    char t[32];
    std::snprintf(t, sizeof t, "%.1f GB/s", bytes_per_second / 1e9);
    return t;
}

std::string plural(int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The GPUs the programs see, G, and how each run is set up for them.
struct Machine {
    int gpus = kEmulatedGpus;
    bool real = false;  // the GPUs are this machine's, not emulated
    RunSettings settings;
};

Machine choose_gpus(ProgramSession& s) {
    Machine m;
    // The host issues work in no time (CUDALAB_HOST_CLOCK=free): the time measured is what the
    // streams and events allow, the same at any load on the machine that emulates (on a GPU,
    // the setting means nothing and the CUPTI timeline's times are the GPUs' own).
    m.settings.environment = {{"CUDALAB_HOST_CLOCK", "free"}};
    if (const char* env = std::getenv("CUDALAB_DEVICES"); env && *env) {
        const int asked = std::atoi(env);
        if (asked >= 2 && asked <= kMaxGpus) m.gpus = asked;
        else
            s.log().push_back("CUDALAB_DEVICES=" + std::string(env) + " is not 2 to " +
                              std::to_string(kMaxGpus) + ": the lesson emulates " +
                              std::to_string(kEmulatedGpus) + " GPUs");
    }
    if (s.backend() == "gpu") {
        const int have = cudalab::lessons::gpus_on_this_machine();
        if (have < 2) {
            m.settings.backend = "emu";
            s.log().push_back("this machine has " + plural(have, "GPU", "GPUs") +
                              ", an all-reduce needs 2 or more: it ran on " +
                              std::to_string(m.gpus) + " emulated GPUs");
        } else {
            m.real = true;
            m.gpus = std::min(have, kMaxRealGpus);
            // The first G of the GPUs this process may use: of CUDA_VISIBLE_DEVICES where it is
            // set (the runner keeps a list it is given), else 0 to G - 1.
            std::vector<std::string> ids;
            if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && *v) {
                std::string list = v;
                for (std::size_t at = 0; at <= list.size();) {
                    const std::size_t comma = std::min(list.find(',', at), list.size());
                    if (comma > at) ids.push_back(list.substr(at, comma - at));
                    at = comma + 1;
                }
            }
            std::string visible;
            for (int i = 0; i < m.gpus; ++i) {
                if (i) visible += ',';
                visible += std::size_t(i) < ids.size() ? ids[std::size_t(i)] : std::to_string(i);
            }
            m.settings.environment.push_back({"CUDA_VISIBLE_DEVICES", visible});
            if (have > kMaxRealGpus)
                s.log().push_back("this machine has " + std::to_string(have) +
                                  " GPUs: the lesson uses the first " +
                                  std::to_string(kMaxRealGpus) +
                                  " (CUDA_VISIBLE_DEVICES=" + visible + ")");
        }
    }
    m.settings.devices = m.gpus;
    return m;
}

// The bandwidth of one plain peer copy of `vector_bytes` between GPU 0 and GPU 1 on the GPUs
// the learner's program will see, from the lesson's peer-bandwidth.cu: the fastest copy on its
// timeline (the clock the learner's time is read with), else what its events measured. 0 and
// `why` when it cannot be measured.
double measure_peer_bandwidth(ProgramSession& s, const Machine& m, std::uint64_t vector_bytes,
                              std::string* why) {
    RunSettings helper = m.settings;
    if (!s.build("peer-bandwidth.cu", &helper.executable, why)) return 0;
    const ProgramRun& run = s.run({std::to_string(vector_bytes / 4)}, helper);
    if (!run.ok()) {
        *why =
            "lessons/20-multi-gpu/peer-bandwidth.cu " +
            (run.completed ? "exited with status " + std::to_string(run.exit_code) : run.failure) +
            ": " + excerpt(run.err);
        return 0;
    }
    double best = 0;
    for (const auto& e : run.timeline)
        if (e.pid >= 1 && e.category == "memcpy" && !is_pcie(e.name) && e.end_ns > e.start_ns &&
            arg_number(e, "bytes") == std::int64_t(vector_bytes))
            best = std::max(best, double(vector_bytes) / (double(e.end_ns - e.start_ns) * 1e-9));
    if (best > 0) return best;
    // No copy on the timeline (a CUPTI that did not record it): the events' figure.
    const auto at = run.out.rfind("best: ");
    if (at != std::string::npos) best = std::atof(run.out.c_str() + at + 6) * 1e9;
    if (best <= 0)
        *why = "lessons/20-multi-gpu/peer-bandwidth.cu timed no peer copy: " + excerpt(run.out);
    return best;
}

void run(ProgramSession& s) {
    const Machine machine = choose_gpus(s);
    const int G = machine.gpus;
    // On real GPUs the host's time to issue a step is real (a few microseconds per call, more
    // under CUPTI's tracing, about 7 calls per GPU and step): with 8 MB vectors a ring step is
    // over before the host has issued the next and the figure would time the host. Vectors 8
    // times longer (64 MB) keep the host ahead of the GPUs after the first step.
    const unsigned scale = machine.real ? 8 : 1;
    const unsigned n =
        std::uniform_int_distribution<unsigned>(2000000 * scale, 2100000 * scale)(s.rng());
    const std::uint64_t vector_bytes = std::uint64_t(n) * 4, all = vector_bytes * G;

    // The link the bound assumes.
    double link = kNvlink;
    std::string link_source = "the model's NVLink", link_unmeasured;
    {
        std::string why;
        const double measured = measure_peer_bandwidth(s, machine, vector_bytes, &why);
        if (machine.real) {
            link = measured;
            link_source = "a plain cudaMemcpyPeerAsync of one vector on these GPUs";
            if (measured <= 0) link_unmeasured = why;
        }
        s.log().push_back(
            measured > 0 ? "a plain cudaMemcpyPeerAsync of one vector (" +
                               mb(double(vector_bytes)) + ") between GPU 0 and GPU 1 " +
                               "reached " + gbs(measured) + (machine.real ? "" : " (emulated)") +
                               "; the ring's bound uses " + gbs(link) + ", " + link_source
                         : "the link was not measured: " + why);
    }

    std::vector<unsigned> file(1 + std::size_t(n) * G), sum(n, 0);
    file[0] = n;
    std::uniform_int_distribution<unsigned> dist;
    for (std::size_t i = 1; i < file.size(); ++i) {
        file[i] = dist(s.rng());
        sum[(i - 1) % n] += file[i];
    }
    s.write_file("in.bin", file.data(), file.size() * 4);
    const ProgramRun& run = s.run({"in.bin", "out.bin"}, machine.settings);

    // 1. Every GPU's vector is the sum.
    bool correct = false;
    const std::string check = "every GPU holds the sum";
    const std::string what = std::to_string(G) + (machine.real ? " GPUs" : " emulated GPUs") +
                             " x " + std::to_string(n) + " values: ";
    const std::string how_many =
        "the program must use every GPU cudaGetDeviceCount reports (here " + std::to_string(G) +
        ") and no constant: in.bin holds one vector per GPU";
    std::vector<unsigned char> bytes;
    if (!run.completed)
        s.check(check, false, 1, what + run.failure + cudalab::lessons::run_details(run),
                "run it yourself: `cudalab run --devices " + std::to_string(G) +
                    " exercises/20-multi-gpu.cu -- in.bin out.bin` with any in.bin");
    else if (run.exit_code != 0 || !run.faults().empty())
        s.check(check, false, 1,
                what + "the program exited with status " + std::to_string(run.exit_code) +
                    cudalab::lessons::run_details(run),
                "every CUDA call must succeed: read the message above (cudaSetDevice(d) before "
                "working with GPU d's memory, streams and events); " +
                    how_many);
    else if (!s.read_file("out.bin", &bytes) || bytes.size() != all)
        s.check(check, false, 1,
                what + "out.bin is missing or has " + std::to_string(bytes.size()) +
                    " bytes, not " + std::to_string(all),
                "write the " + std::to_string(G) + " vectors one after the other, GPU 0's first; " +
                    how_many);
    else {
        std::vector<unsigned> out(std::size_t(n) * G);
        std::memcpy(out.data(), bytes.data(), bytes.size());
        std::vector<std::size_t> bad(std::size_t(G), 0);
        std::size_t first_bad = 0, total_bad = 0;
        int first_gpu = -1;
        for (int d = 0; d < G; ++d)
            for (unsigned i = 0; i < n; ++i)
                if (out[std::size_t(d) * n + i] != sum[i] && bad[std::size_t(d)]++ == 0 &&
                    first_gpu < 0)
                    first_gpu = d, first_bad = i;
        std::string per;
        for (int d = 0; d < G; ++d) {
            per += (d ? ", " : "") + std::to_string(bad[std::size_t(d)]);
            total_bad += bad[std::size_t(d)];
        }
        const std::string g = std::to_string(G), g1 = std::to_string(G - 1);
        if (first_gpu >= 0)
            s.check(check, false, double(total_bad),
                    what + "wrong values per GPU: " + per + "; the first on GPU " +
                        std::to_string(first_gpu) + " at index " + std::to_string(first_bad) +
                        " (chunk " + std::to_string(first_bad / ((n + G - 1) / G)) + " of " + g +
                        ")",
                    "follow one chunk around the ring on paper: in reduce-scatter step s GPU d "
                    "sends chunk (d - s) mod " +
                        g + " and the next GPU adds it to its own; after " +
                        plural(G - 1, "step", "steps") +
                        " GPU d has the whole sum of chunk (d + 1) mod " + g + ", which " + g1 +
                        " all-gather " + (G - 1 == 1 ? "step copies" : "steps copy") +
                        " round. A wrong chunk usually means a copy or an add read data another "
                        "stream had not finished: record an event after it and make the other "
                        "stream wait for it");
        else correct = s.check(check, true, 0, what + "every GPU's vector is the sum", "");
    }

    // 2. What moved where.
    std::uint64_t to_device = 0, to_host = 0, peer = 0, staged = 0;
    std::vector<std::uint64_t> sent(std::size_t(G), 0), received(std::size_t(G), 0);
    std::vector<Interval> busy;
    for (const auto& e : run.timeline) {
        if (e.pid < 1) continue;
        const bool copy = e.category == "memcpy";
        const auto b = std::uint64_t(std::max<std::int64_t>(0, arg_number(e, "bytes")));
        // A copy between GPUs without peer access, staged through the host: two legs, one
        // counted (docs/runtime.md).
        if (copy && e.args.is_object() && e.args.contains("staged")) {
            if (e.name.find("HtoD") != std::string::npos) staged += b;
            continue;
        }
        if (copy && e.name.find("HtoD") != std::string::npos) to_device += b;
        else if (copy && e.name.find("DtoH") != std::string::npos) to_host += b;
        else if (copy && e.name.find("PtoP") != std::string::npos) {
            peer += b;
            const std::int64_t from = arg_number(e, "src_device", -1),
                               to = arg_number(e, "dst_device", -1);
            if (from >= 0 && from < G) sent[std::size_t(from)] += b;
            if (to >= 0 && to < G) received[std::size_t(to)] += b;
        }
        if ((copy && !is_pcie(e.name)) || e.category == "kernel" || e.category == "memset")
            busy.push_back({e.start_ns / 1e3, e.end_ns / 1e3});
    }
    // Every GPU sends (and receives) 2 (G - 1) / G of its vector: 2 (G - 1) vectors in all.
    const std::uint64_t ring_bytes = 2 * std::uint64_t(G - 1) * vector_bytes;
    auto vectors = [&](std::uint64_t b) {
        char t[32];
        std::snprintf(t, sizeof t, "%.2f", double(b) / double(vector_bytes));
        return std::string(t);
    };
    std::string per_gpu;
    for (int d = 0; d < G; ++d)
        per_gpu += (d ? ", " : "") + std::string("GPU ") + std::to_string(d) + " " +
                   vectors(sent[std::size_t(d)]) + "/" + vectors(received[std::size_t(d)]);
    const bool timeline = run.timeline_written;
    bool moved_right = false;
    const std::string moved =
        std::to_string(to_device) + " bytes to the GPUs and " + std::to_string(to_host) +
        " back over PCIe, " + std::to_string(peer) +
        " between GPUs (the inputs and the results are " + std::to_string(all) +
        " bytes each way; a ring moves " + std::to_string(ring_bytes) +
        " between GPUs); vectors sent/received per GPU: " + per_gpu +
        " (a ring: " + vectors(ring_bytes / G) + "/" + vectors(ring_bytes / G) + " each)";
    if (!run.ok())
        s.check("no staging through the host", false, 1,
                "not read: the program did not finish the all-reduce (the first check says why)",
                "make it run to the end first");
    else if (!timeline)
        s.check("no staging through the host", false, 1,
                "the run wrote no timeline, so the copies cannot be read",
                "let the program exit normally (return from main)");
    else if (staged)
        s.check("no staging through the host", false, 1,
                std::to_string(staged) +
                    " bytes of copies between GPUs went through the host: " + moved,
                "enable peer access: for each pair of neighbouring GPUs, check "
                "cudaDeviceCanAccessPeer and call cudaDeviceEnablePeerAccess on each side "
                "(cudaSetDevice first); without it the driver stages every peer copy through host "
                "memory, twice over PCIe");
    else if (to_device > all || to_host > all)
        s.check("no staging through the host", false, 1, moved,
                "copy between GPUs with cudaMemcpyPeerAsync (or cudaMemcpyAsync of device "
                "pointers): a copy to the host and back crosses PCIe twice, at an eighth of "
                "NVLink's bandwidth");
    else if (peer * 100 < ring_bytes * 99)
        s.check("no staging through the host", false, 1, moved,
                "the vectors must travel between the GPUs as peer copies (cudaMemcpyPeerAsync): "
                "the lesson times the copies; a kernel that reads another GPU's memory directly "
                "works too on a GPU, but is not what this lesson practises");
    else moved_right = s.check("no staging through the host", true, 0, moved, "");

    // 2b. The host does not wait between the ring's steps: events order them, and a host that
    // synchronises every GPU between steps leaves each link idle while it waits and issues. The
    // timeline holds its events in issue order, so the host's waits between the first peer copy
    // issued and the last are counted.
    {
        std::size_t first_copy = run.timeline.size(), last_copy = 0;
        for (std::size_t i = 0; i < run.timeline.size(); ++i) {
            const auto& e = run.timeline[i];
            if (e.pid >= 1 && e.category == "memcpy" && e.name.find("PtoP") != std::string::npos) {
                first_copy = std::min(first_copy, i);
                last_copy = i;
            }
        }
        std::size_t waits = 0;
        std::string first_wait;
        for (std::size_t i = first_copy; i < last_copy && i < run.timeline.size(); ++i) {
            const auto& e = run.timeline[i];
            if (e.pid != 0) continue;
            if (e.name == "cudaStreamSynchronize" || e.name == "cudaDeviceSynchronize" ||
                e.name == "cudaEventSynchronize" || e.name == "cudaMemcpy" ||
                e.name == "cudaMemcpyPeer") {
                if (!waits++) first_wait = e.name;
            }
        }
        const std::string name = "the host does not wait between the ring's steps";
        if (!run.ok() || !timeline || first_copy >= run.timeline.size())
            s.not_measured(name, 0, false,
                           !run.ok() || !timeline
                               ? "the run did not finish with a timeline (the first check says why)"
                               : "no copies between GPUs on the timeline",
                           "copy between GPUs with cudaMemcpyPeerAsync");
        else
            s.check_at_most(name, double(waits), 0,
                            waits ? "the host waited " + std::to_string(waits) +
                                        (waits == 1 ? " time" : " times") +
                                        " while the ring ran (the first: " + first_wait + ")"
                                  : "the host issued every step without waiting for the GPUs",
                            "let events order the steps: record an event in the sending GPU's "
                            "stream and make the receiving GPU's stream wait for it "
                            "(cudaStreamWaitEvent); wait on the host only once, after the last "
                            "copy out. A host that synchronises every GPU between steps leaves "
                            "the links idle while it waits and issues the next step",
                            true, "");
    }

    // 3. Time against the ring's bound.
    const auto merged = cudalab::lessons::merge_intervals(busy);
    double us = 0;
    for (const auto& i : merged) us += i.end - i.start;
    const std::string name = "all-reduce time against the ring's bound";
    // The bound plus three eighths of the least that gathering on one GPU takes (G - 1 vectors in
    // and G - 1 out over one link: G x the bound): 1.75x for 2 GPUs, 2.5x for 4, 4x for 8. It is
    // below G, so any gather fails whatever its overheads, and leaves room for what a ring of
    // 2 (G - 1) steps cannot avoid and the bound leaves out: each step's copy start-up and the
    // adds. The model's ring reaches 1.56x (2 GPUs), 1.75x (3), 1.95x (4), 2.7x (8).
    const double allowed = 1.0 + 3.0 * G / 8;
    const std::string gather_advice =
        "gathering everything on one GPU makes its link carry " +
        plural(G - 1, "whole vector", "whole vectors") + " in and " + std::to_string(G - 1) +
        " out, one after the other. In a ring every GPU sends 1/" + std::to_string(G) +
        " of its vector to the next at each of " + std::to_string(2 * (G - 1)) +
        " steps, all links at once" +
        (G == 2 ? " (with 2 GPUs the ring is an exchange: each sends the other half its vector, "
                  "then the half it completed)"
                : "") +
        ": give each GPU its own stream, issue each step's copies in the receiving GPU's stream "
        "after a cudaStreamWaitEvent on the sender's event, and do not synchronise the host "
        "between steps";
    if (!link_unmeasured.empty()) {
        s.not_measured(name, allowed, false,
                       "the peer bandwidth of these GPUs, which the bound needs, could not be "
                       "measured: " +
                           link_unmeasured,
                       "run `cudalab run --backend gpu lessons/20-multi-gpu/peer-bandwidth.cu -- " +
                           std::to_string(n) + "` to see why");
        return;
    }
    const double bound_us = double(ring_bytes) / G / link * 1e6;
    char text[400];
    std::snprintf(text, sizeof text,
                  "the all-reduce kept the GPUs busy for %.1f us (%s); the ring's bandwidth bound "
                  "is %.1f us (2 x %d/%d x %.1f MB at %.1f GB/s, %s): %.2fx",
                  us, machine.real ? "measured by CUPTI" : "modelled", bound_us, G - 1, G,
                  double(vector_bytes) / 1e6, link / 1e9, link_source.c_str(),
                  bound_us > 0 ? us / bound_us : 0);
    s.check_at_most(name, bound_us > 0 ? us / bound_us : 0, allowed, text, gather_advice,
                    correct && timeline && moved_right,
                    "make every GPU's vector right first, with peer copies (the checks above say "
                    "what is wrong)");
}

}  // namespace

CUDALAB_PROGRAM_LESSON("20-multi-gpu", run);
