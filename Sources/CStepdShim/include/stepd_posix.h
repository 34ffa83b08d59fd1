#ifndef STEPD_POSIX_H
#define STEPD_POSIX_H
/* POSIX/Linux calls whose headers Swift's Glibc module does not expose (signalfd, SO_PEERCRED).
 * Every function returns >= 0 on success and -errno on failure. */
#include <stdint.h>
#include <sys/types.h>

/* Blocks `signals` for the calling thread and returns a non-blocking, close-on-exec signalfd for them. */
int stepd_signalfd_create(const int *signals, int count);
/* Reads one pending signal from a signalfd: the signal number, 0 when none is pending, or -errno. */
int stepd_signalfd_read(int fd);

typedef struct {
    int32_t pid;
    uint32_t uid;
    uint32_t gid;
} stepd_peer_credentials;

/* SO_PEERCRED of a connected Unix socket. */
int stepd_peer_credentials_get(int fd, stepd_peer_credentials *out);

/* glibc's malloc_trim(0): returns freed heap pages to the kernel. Glibc's Swift module does not
 * export <malloc.h>. Returns 1 when memory was released, 0 otherwise. */
int stepd_release_free_memory(void);

#endif
