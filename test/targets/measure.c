// Runs a command and writes what it cost to a file, for tests that bound the
// reader: measure <out.json> <program> [args...] writes
// {"maxrss_kb":N,"wall_ms":N,"exit":N,"signal":N} (exit -1 if it died of a
// signal). The command's stdin, stdout and stderr are this process's.
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s <out.json> <program> [args...]\n", argv[0]);
    return 2;
  }
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  const pid_t pid = fork();
  if (pid < 0) return perror("fork"), 1;
  if (pid == 0) {
    execv(argv[2], argv + 2);
    perror("execv");
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) != pid) return perror("wait4"), 1;
  clock_gettime(CLOCK_MONOTONIC, &end);
  const double ms =
      (double)(end.tv_sec - start.tv_sec) * 1e3 + (double)(end.tv_nsec - start.tv_nsec) / 1e6;
  FILE* out = fopen(argv[1], "w");
  if (out == NULL) return perror("fopen"), 1;
  fprintf(out, "{\"maxrss_kb\":%ld,\"wall_ms\":%.0f,\"exit\":%d,\"signal\":%d}\n", usage.ru_maxrss,
          ms, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
          WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return fclose(out) == 0 ? 0 : 1;
}
