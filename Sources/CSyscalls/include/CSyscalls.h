// Linux calls that `import Glibc` does not expose to Swift (epoll, accept4, eventfd),
// and macros Swift cannot call (CPU_COUNT). Not a package dependency: just a header.
#ifndef CSYSCALLS_H
#define CSYSCALLS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// The number of CPUs this process may run on (honours `taskset`), at least 1.
static inline int csyscalls_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
    int count = CPU_COUNT(&set);
    return count > 0 ? count : 1;
}

#endif
