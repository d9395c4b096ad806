// Frames on a Unix stream socket (protocol.h): a header, the body, and at most one descriptor
// passed as SCM_RIGHTS with the frame's first byte.
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "device/protocol.h"

namespace cudalab::device {

void Reader::take(void* out, std::size_t n) {
    if (left() < n) {
        std::memset(out, 0, n);
        short_read = true;
        at = end;
        return;
    }
    std::memcpy(out, at, n);
    at += n;
}

namespace {

bool write_all(int s, const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    while (n) {
        const ssize_t k = ::send(s, b, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        b += k;
        n -= std::size_t(k);
    }
    return true;
}

bool read_all(int s, void* p, std::size_t n) {
    auto* b = static_cast<std::uint8_t*>(p);
    while (n) {
        const ssize_t k = ::recv(s, b, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        b += k;
        n -= std::size_t(k);
    }
    return true;
}

struct Header {
    std::uint32_t type;
    std::uint32_t size;
};

// Sends the header with ancillary data (a descriptor, credentials) attached to it.
bool send_header(int s, const Header& h, int fd, bool credentials) {
    iovec io{const_cast<Header*>(&h), sizeof h};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(ucred))] = {};
    std::size_t used = 0;
    if (fd >= 0 || credentials) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        if (fd >= 0) {
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
            used += CMSG_SPACE(sizeof(int));
            c = CMSG_NXTHDR(&msg, c);
        }
        if (credentials) {
            ucred cred{::getpid(), ::getuid(), ::getgid()};
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_CREDENTIALS;
            c->cmsg_len = CMSG_LEN(sizeof(ucred));
            std::memcpy(CMSG_DATA(c), &cred, sizeof cred);
            used += CMSG_SPACE(sizeof(ucred));
        }
        msg.msg_controllen = used;
    }
    for (;;) {
        const ssize_t k = ::sendmsg(s, &msg, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        if (std::size_t(k) == sizeof h) return true;
        // The rest of the header without the ancillary data (sent with the first byte).
        return write_all(s, reinterpret_cast<const char*>(&h) + k, sizeof h - std::size_t(k));
    }
}

bool receive_header(int s, Header* h, int* fd, int* pid) {
    iovec io{h, sizeof *h};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4) + CMSG_SPACE(sizeof(ucred))] = {};
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t k;
    do k = ::recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
    while (k < 0 && errno == EINTR);
    if (k <= 0) return false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET) continue;
        if (c->cmsg_type == SCM_RIGHTS) {
            const std::size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (std::size_t i = 0; i < n; ++i) {
                int got = -1;
                std::memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
                // One descriptor per frame: any more were sent to exhaust ours.
                if (fd && *fd < 0) *fd = got;
                else ::close(got);
            }
        } else if (c->cmsg_type == SCM_CREDENTIALS && pid) {
            ucred cred{};
            std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
            *pid = cred.pid;
        }
    }
    if (std::size_t(k) < sizeof *h &&
        !read_all(s, reinterpret_cast<char*>(h) + k, sizeof *h - std::size_t(k)))
        return false;
    return true;
}

bool receive_body(int s, const Header& h, Message* m) {
    if (h.size > max_body) return false;
    m->type = Frame(h.type);
    m->body.resize(h.size);
    return h.size == 0 || read_all(s, m->body.data(), h.size);
}

}  // namespace

bool send_message(int socket, const Message& m) {
    const Header h{std::uint32_t(m.type), std::uint32_t(m.body.size())};
    if (m.body.size() > max_body) return false;
    if (m.fd >= 0) {
        return send_header(socket, h, m.fd, false) &&
               (m.body.empty() || write_all(socket, m.body.data(), m.body.size()));
    }
    // Header and body in one system call: a call's round trip is two of them, one each way.
    iovec io[2] = {{const_cast<Header*>(&h), sizeof h},
                   {const_cast<std::uint8_t*>(m.body.data()), m.body.size()}};
    msghdr msg{};
    msg.msg_iov = io;
    msg.msg_iovlen = m.body.empty() ? 1 : 2;
    const std::size_t total = sizeof h + m.body.size();
    ssize_t k;
    do k = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
    while (k < 0 && errno == EINTR);
    if (k <= 0) return false;
    if (std::size_t(k) == total) return true;
    // A short send (a large body): the rest as it goes.
    std::vector<std::uint8_t> rest(total - std::size_t(k));
    std::size_t at = std::size_t(k);
    for (std::size_t i = 0; i < rest.size(); ++i, ++at)
        rest[i] =
            at < sizeof h ? reinterpret_cast<const std::uint8_t*>(&h)[at] : m.body[at - sizeof h];
    return write_all(socket, rest.data(), rest.size());
}

bool receive_message(int socket, Message* m, int spin_us) {
    Header h{};
    m->fd = -1;
    if (spin_us > 0) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us);
        char byte;
        while (::recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT) < 0 && errno == EAGAIN &&
               std::chrono::steady_clock::now() < until) {
        }
    }
    if (!receive_header(socket, &h, &m->fd, nullptr)) return false;
    return receive_body(socket, h, m);
}

bool send_hello(int socket, const Message& m) {
    const Header h{std::uint32_t(m.type), std::uint32_t(m.body.size())};
    return send_header(socket, h, -1, true) && write_all(socket, m.body.data(), m.body.size());
}

bool receive_hello(int socket, Message* m, int* pid) {
    const int on = 1;
    ::setsockopt(socket, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    Header h{};
    *pid = 0;
    m->fd = -1;
    if (!receive_header(socket, &h, &m->fd, pid)) return false;
    return receive_body(socket, h, m);
}

std::uint64_t calls_checksum() {
#define CALL(ret, name, params, args) #ret " " #name #params "\n"
    static const char table[] =
#include "device/calls.inc"
        ;
#undef CALL
    std::uint64_t h = 1469598103934665603ull ^ protocol_version;
    for (const char* p = table; *p; ++p) h = (h ^ std::uint8_t(*p)) * 1099511628211ull;
    return h;
}

}  // namespace cudalab::device
