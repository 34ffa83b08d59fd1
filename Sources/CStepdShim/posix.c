#define _GNU_SOURCE
#include "stepd_posix.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

int stepd_signalfd_create(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) {
        if (sigaddset(&set, signals[i]) != 0) return -errno;
    }
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) return -errno;
    int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int stepd_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    if (n < 0) return errno == EAGAIN ? 0 : -errno;
    if ((size_t)n != sizeof info) return -EIO;
    return (int)info.ssi_signo;
}

int stepd_peer_credentials_get(int fd, stepd_peer_credentials *out) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -errno;
    out->pid = cred.pid;
    out->uid = cred.uid;
    out->gid = cred.gid;
    return 0;
}

int stepd_release_free_memory(void) {
    return malloc_trim(0);
}
