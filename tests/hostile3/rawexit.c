#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
/* allocation work, then the exit system call itself: no exit record, no read-back */
int main(void)
{
	void *a[256] = {0};
	for (long i = 0; i < 100000; i++) {
		int k = (int)((i * 31) & 255);
		free(a[k]);
		a[k] = malloc(16 + (size_t)(i * 7) % 4000);
	}
	syscall(SYS_exit_group, 0);
	return 1;
}
