// The implementations behind CSyscalls.h. They live here, compiled with _GNU_SOURCE,
// so the header Swift imports includes no system header whose definitions would then
// differ from Glibc's own module.
#define _GNU_SOURCE
#include "CSyscalls.h"

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#define CSYSCALLS_MAX_EVENTS 256

_Static_assert(CSYSCALLS_EPOLLIN == EPOLLIN && CSYSCALLS_EPOLLOUT == EPOLLOUT && CSYSCALLS_EPOLLERR == EPOLLERR
               && CSYSCALLS_EPOLLHUP == EPOLLHUP && CSYSCALLS_EPOLLRDHUP == EPOLLRDHUP
               && CSYSCALLS_EPOLLEXCLUSIVE == EPOLLEXCLUSIVE, "epoll constants");

/// The number of CPUs this process may run on (honours `taskset`), at least 1.
int csyscalls_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
    int count = CPU_COUNT(&set);
    return count > 0 ? count : 1;
}

int csyscalls_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// op: 0 add, 1 modify, 2 delete.
int csyscalls_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = events;
    event.data.u64 = data;
    int ops[3] = {EPOLL_CTL_ADD, EPOLL_CTL_MOD, EPOLL_CTL_DEL};
    return epoll_ctl(epfd, ops[op < 0 || op > 2 ? 0 : op], fd, &event);
}

/// Waits for up to `max` (at most 256) events and copies them into `out`.
int csyscalls_epoll_wait(int epfd, csyscalls_event *out, int max, int timeout_ms) {
    struct epoll_event events[CSYSCALLS_MAX_EVENTS];
    if (max > CSYSCALLS_MAX_EVENTS) max = CSYSCALLS_MAX_EVENTS;
    int count = epoll_wait(epfd, events, max, timeout_ms);
    for (int i = 0; i < count; i++) {
        out[i].events = events[i].events;
        out[i].data = events[i].data.u64;
    }
    return count;
}

int csyscalls_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void csyscalls_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t ignored = write(fd, &one, sizeof(one));
    (void)ignored;
}

void csyscalls_eventfd_drain(int fd) {
    uint64_t value;
    ssize_t ignored = read(fd, &value, sizeof(value));
    (void)ignored;
}

/// A non-blocking listening TCP socket on host:port (host NULL or "" = any IPv4 address).
/// Returns the fd, or -errno (or -1000 - a getaddrinfo error) on failure. `bound_port`
/// receives the port actually bound (useful for port 0).
int csyscalls_listen(const char *host, int port, int backlog, int *bound_port) {
    struct addrinfo hints, *result = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof(service), "%d", port);
    int rc = getaddrinfo((host && *host) ? host : "0.0.0.0", service, &hints, &result);
    if (rc != 0) return -1000 - (rc < 0 ? -rc : rc);
    int fd = -1, saved = EADDRNOTAVAIL;
    for (struct addrinfo *ai = result; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) { saved = errno; continue; }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, backlog) == 0) break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(result);
    if (fd < 0) return -saved;
    struct sockaddr_storage address;
    socklen_t length = sizeof(address);
    if (getsockname(fd, (struct sockaddr *)&address, &length) == 0) {
        if (address.ss_family == AF_INET) *bound_port = ntohs(((struct sockaddr_in *)&address)->sin_port);
        else if (address.ss_family == AF_INET6) *bound_port = ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    }
    return fd;
}

/// accept4, non-blocking and close-on-exec, with TCP_NODELAY set. Returns the fd or -errno.
int csyscalls_accept(int listen_fd) {
    int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return -errno;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

// The calls made for every request (recv, send, sendmsg) go through syscall(), which is
// not a cancellation point: glibc's recv() and send() are, and pay two atomic operations
// a call to honour pthread_cancel, which the server never uses.

/// send() that never raises SIGPIPE. Returns bytes sent or -errno.
long csyscalls_send(int fd, const void *bytes, size_t count) {
    long sent = syscall(SYS_sendto, fd, bytes, count, MSG_NOSIGNAL, NULL, 0);
    return sent < 0 ? -errno : sent;
}

_Static_assert(sizeof(csyscalls_iovec) == sizeof(struct iovec)
               && offsetof(csyscalls_iovec, base) == offsetof(struct iovec, iov_base)
               && offsetof(csyscalls_iovec, length) == offsetof(struct iovec, iov_len), "iovec layout");

/// sendmsg() of `count` buffers in order, never raising SIGPIPE. Returns bytes sent or -errno.
long csyscalls_sendv(int fd, const csyscalls_iovec *buffers, int count) {
    struct msghdr message;
    memset(&message, 0, sizeof(message));
    message.msg_iov = (struct iovec *)buffers;
    message.msg_iovlen = (size_t)count;
    long sent = syscall(SYS_sendmsg, fd, &message, MSG_NOSIGNAL);
    return sent < 0 ? -errno : sent;
}

/// recv() from a socket, returning -errno on failure. Not read(): that goes through the
/// file layer (position lock, permission hook, iterator) before reaching the socket.
long csyscalls_recv(int fd, void *bytes, size_t count) {
    long got = syscall(SYS_recvfrom, fd, bytes, count, 0, NULL, NULL);
    return got < 0 ? -errno : got;
}

int csyscalls_shutdown_write(int fd) { return shutdown(fd, SHUT_WR); }

/// Raises the soft open-file limit to `wanted` (capped by the hard limit); returns the new soft limit.
long csyscalls_raise_open_files(long wanted) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if ((rlim_t)wanted > limit.rlim_cur) {
        rlim_t target = (rlim_t)wanted;
        if (limit.rlim_max != RLIM_INFINITY && target > limit.rlim_max) target = limit.rlim_max;
        limit.rlim_cur = target;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) getrlimit(RLIMIT_NOFILE, &limit);
    }
    return (long)limit.rlim_cur;
}

void csyscalls_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

void csyscalls_keep_freed_memory(int mmap_bytes) {
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, mmap_bytes);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

int csyscalls_trim_heap(void) { return malloc_trim(0); }

/// Monotonic clock in nanoseconds.
int64_t csyscalls_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// Wall clock in milliseconds since the Unix epoch.
int64_t csyscalls_wall_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/// A blocking loopback TCP connection with send/receive timeouts, for the health check.
/// Returns the fd or -errno.
int csyscalls_connect_loopback(int port, int timeout_ms) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
        int saved = errno;
        close(fd);
        return -saved;
    }
    return fd;
}

