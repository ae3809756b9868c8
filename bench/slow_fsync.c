/* A slow disk, emulated: every fsync and fdatasync of the process waits D100_FSYNC_DELAY_US
 * microseconds first. Loaded with LD_PRELOAD by `python -m bench --fsync-delay-ms N`, so that
 * SQLite's durable commits cost what they cost on a slow disk, on any machine. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

static useconds_t delay_us(void) {
    const char *s = getenv("D100_FSYNC_DELAY_US");
    return s ? (useconds_t)strtoul(s, NULL, 10) : 0;
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    usleep(delay_us());
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    usleep(delay_us());
    return real(fd);
}
