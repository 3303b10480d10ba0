/* send-eagain: an LD_PRELOAD shim for tests. Every 5th send() with
 * MSG_DONTWAIT of over 16 KiB reports a full socket (EAGAIN, nothing
 * taken), as a send buffer filled to the byte does: rare on loopback, but
 * a legal answer the proxy must handle. Built by the test that uses it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/types.h>

ssize_t send(int fd, const void *p, size_t n, int flags)
{
	static ssize_t (*real)(int, const void *, size_t, int);
	static unsigned calls;

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
	if ((flags & MSG_DONTWAIT) && n > 16384 && ++calls % 5 == 0) {
		errno = EAGAIN;
		return -1;
	}
	return real(fd, p, n, flags);
}
