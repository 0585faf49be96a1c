// What the hostile targets' shape threads share: dying with the failed call's
// name, counting threads that have published (shape_ready) so main can wait
// for all of them (wait_for_shapes), and, once published, lowering a thread's
// priority and staying where it is, on CPU (`spin`, so `sample` sees it) or
// asleep in pause().
#ifndef CUSTOMLABELS_TEST_TARGETS_SHAPE_THREAD_H_
#define CUSTOMLABELS_TEST_TARGETS_SHAPE_THREAD_H_

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static void die(const char* what) {
  perror(what);
  exit(1);
}

static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int ready_count;

static void shape_ready(void) {
  pthread_mutex_lock(&ready_lock);
  ++ready_count;
  pthread_cond_signal(&ready_cond);
  pthread_mutex_unlock(&ready_lock);
}

static void wait_for_shapes(int n) {
  pthread_mutex_lock(&ready_lock);
  while (ready_count < n) pthread_cond_wait(&ready_cond, &ready_lock);
  pthread_mutex_unlock(&ready_lock);
}

static void stay_forever(int spin) {
  setpriority(PRIO_PROCESS, 0, 19);  // Linux: the calling thread only
  volatile uint64_t counter = 0;
  for (;;) {
    if (spin) {
      ++counter;
    } else {
      pause();
    }
  }
}

#endif  // CUSTOMLABELS_TEST_TARGETS_SHAPE_THREAD_H_
