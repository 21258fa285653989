// Linux calls that `import Glibc` does not expose to Swift (epoll, accept4, eventfd),
// and macros Swift cannot call (CPU_COUNT). Not a package dependency: a header and the
// small C file that implements it. The header includes no system header on purpose
// (see shim.c).
#ifndef CSYSCALLS_H
#define CSYSCALLS_H

#include <stddef.h>
#include <stdint.h>

/// `struct epoll_event` is packed on x86_64, which Swift cannot lay out; this one is not.
typedef struct {
    uint32_t events;
    uint64_t data;
} csyscalls_event;

/// The Linux epoll event bits (checked against <sys/epoll.h> in shim.c).
enum {
    CSYSCALLS_EPOLLIN = 0x001,
    CSYSCALLS_EPOLLOUT = 0x004,
    CSYSCALLS_EPOLLERR = 0x008,
    CSYSCALLS_EPOLLHUP = 0x010,
    CSYSCALLS_EPOLLRDHUP = 0x2000,
    CSYSCALLS_EPOLLEXCLUSIVE = 0x10000000,
};

/// The number of CPUs this process may run on (honours `taskset`), at least 1.
int csyscalls_available_cpus(void);

int csyscalls_epoll_create(void);

/// op: 0 add, 1 modify, 2 delete.
int csyscalls_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);

/// Waits for up to `max` (at most 256) events and copies them into `out`.
int csyscalls_epoll_wait(int epfd, csyscalls_event *out, int max, int timeout_ms);

int csyscalls_eventfd(void);

void csyscalls_eventfd_signal(int fd);

void csyscalls_eventfd_drain(int fd);

/// A non-blocking listening TCP socket on host:port (host NULL or "" = any IPv4 address).
/// Returns the fd, or -errno (or -1000 - a getaddrinfo error) on failure. `bound_port`
/// receives the port actually bound (useful for port 0).
int csyscalls_listen(const char *host, int port, int backlog, int *bound_port);

/// accept4, non-blocking and close-on-exec, with TCP_NODELAY set. Returns the fd or -errno.
int csyscalls_accept(int listen_fd);

/// send() that never raises SIGPIPE. Returns bytes sent or -errno.
long csyscalls_send(int fd, const void *bytes, size_t count);

/// `struct iovec` (checked against <sys/uio.h> in shim.c).
typedef struct {
    const void *base;
    size_t length;
} csyscalls_iovec;

/// sendmsg() of `count` buffers in order, never raising SIGPIPE. Returns bytes sent or -errno.
long csyscalls_sendv(int fd, const csyscalls_iovec *buffers, int count);

/// recv() from a socket, returning -errno on failure.
long csyscalls_recv(int fd, void *bytes, size_t count);

int csyscalls_shutdown_write(int fd);

/// Raises the soft open-file limit to `wanted` (capped by the hard limit); returns the new soft limit.
long csyscalls_raise_open_files(long wanted);

void csyscalls_ignore_sigpipe(void);

/// Makes glibc keep freed blocks: ones up to `mmap_bytes` come from its heap (not a
/// mapping of their own), and free memory at the heap's top is not given back by `free`.
/// One arena for every thread, so whichever thread runs the next large request reuses
/// the blocks (small blocks still come from per-thread caches, without the lock).
/// `csyscalls_trim_heap` gives the memory back.
void csyscalls_keep_freed_memory(int mmap_bytes);

/// Gives the heaps' free pages back to the system (malloc_trim); returns 1 if any were.
int csyscalls_trim_heap(void);

/// Monotonic clock in nanoseconds.
int64_t csyscalls_monotonic_ns(void);

/// Wall clock in milliseconds since the Unix epoch.
int64_t csyscalls_wall_ms(void);

/// A blocking loopback TCP connection with send/receive timeouts, for the health check.
/// Returns the fd or -errno.
int csyscalls_connect_loopback(int port, int timeout_ms);

#endif
