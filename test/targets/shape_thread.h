// What the hostile targets' shape threads share: once published, a thread
// lowers its priority and stays where it is, on CPU (`spin`, so `sample` sees
// it) or asleep in pause().
#ifndef CUSTOMLABELS_TEST_TARGETS_SHAPE_THREAD_H_
#define CUSTOMLABELS_TEST_TARGETS_SHAPE_THREAD_H_

#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

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
