#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
/* a child that moves itself into the bench's parent cgroup and stays */
int main(int c, char **v)
{
	if (fork() == 0) {
		char num[32];
		int fd = open(v[1], O_WRONLY);
		snprintf(num, sizeof num, "%d\n", getpid());
		if (fd < 0 || write(fd, num, strlen(num)) < 0)
			_exit(3);
		close(fd);
		sleep(60);
		_exit(0);
	}
	usleep(200000);
	return 0;
}
