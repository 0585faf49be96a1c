// A hostile target for the reader: each shape runs on its own thread (named
// after the shape) and publishes a label set that is malformed in one way,
// through the fake addon (fake_addon.c) that it dlopen()s, as Node.js loads
// the real one.
//
//   malformed_sets <dir>/customlabels.node [--spin] [shape ...]
//
// Prints one JSON line per shape, {"shape":...,"tid":...,"set":"0x...",...}
// with the addresses a test needs to predict the reader's output, then
// "ready", and runs until stdin closes. With --spin every shape thread stays
// on CPU (so `sample` sees it); otherwise it sleeps. "rewriting" always spins,
// rewriting its own set while a second thread rewrites it too. Threads that
// spin do so at the lowest priority (nice 19).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fake_set.h"
#include "shape_thread.h"


static void (*publish)(const void*);
static int spin;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static const size_t kPage = 4096;

static void* map(size_t n, int flags) {
  void* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
  if (p == MAP_FAILED) die("mmap");
  return p;
}

// n readable bytes that end where an unreadable page begins.
static void* guarded(size_t n) {
  const size_t rounded = (n + kPage - 1) / kPage * kPage;
  unsigned char* base = map(rounded + kPage, 0);
  if (mprotect(base + rounded, kPage, PROT_NONE) != 0) die("mprotect");
  return base + rounded - n;
}

// A mapped page that cannot be read.
static void* unreadable(void) {
  void* p = mmap(NULL, kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) die("mmap");
  return p;
}

static str_t S(const char* s) { return (str_t){strlen(s), (const unsigned char*)s}; }
static str_t B(const void* buf, size_t len) { return (str_t){len, buf}; }
static const str_t kNull = {0, NULL};

static set_t* new_set(label_t* storage, size_t count) {
  set_t* s = map(sizeof(set_t), 0);
  s->storage = storage;
  s->count = count;
  s->capacity = count;
  return s;
}

static label_t* labels(size_t n) { return map(n * sizeof(label_t) + 1, 0); }

// A shape builds what it publishes and appends its own fields to `extra`.
typedef const void* (*build_fn)(char* extra, size_t size);

static const void* good(char* x, size_t n) {
  (void)x, (void)n;
  label_t* l = labels(2);
  l[0] = (label_t){S("a"), S("1")};
  l[1] = (label_t){S("b"), S("2")};
  return new_set(l, 2);
}

static const void* none(char* x, size_t n) {
  (void)x, (void)n;
  return NULL;
}

// count 2^63: two readable labels, then an unreadable page.
static const void* count_2_63(char* x, size_t n) {
  label_t* l = guarded(2 * sizeof(label_t));
  l[0] = (label_t){S("c1"), S("x")};
  l[1] = (label_t){S("c2"), S("y")};
  snprintf(x, n, ",\"storage\":\"%p\"", (void*)l);
  return new_set(l, (size_t)1 << 63);
}

// count * 32 wraps to 64: a reader that multiplies reads two labels.
static const void* count_overflow(char* x, size_t n) {
  label_t* l = guarded(2 * sizeof(label_t));
  l[0] = (label_t){S("o1"), S("x")};
  l[1] = (label_t){S("o2"), S("y")};
  snprintf(x, n, ",\"storage\":\"%p\"", (void*)l);
  return new_set(l, ((size_t)1 << 59) + 2);
}

static const void* bad_storage(char* x, size_t n) {
  label_t* l = unreadable();
  snprintf(x, n, ",\"storage\":\"%p\"", (void*)l);
  return new_set(l, 3);
}

static const void* null_storage(char* x, size_t n) {
  (void)x, (void)n;
  return new_set(NULL, 2);
}

static const void* bad_set(char* x, size_t n) {
  (void)x, (void)n;
  return (const void*)(uintptr_t)0xdead000000000000ull;
}

// A readable, well-formed set three bytes past an aligned address.
static const void* misaligned_set(char* x, size_t n) {
  (void)x, (void)n;
  label_t* l = labels(1);
  l[0] = (label_t){S("m"), S("1")};
  unsigned char* raw = map(64, 0);
  set_t s = {l, 1, 1};
  memcpy(raw + 3, &s, sizeof(s));
  return raw + 3;
}

// Lengths of 2^64-1 over buffers that are long enough for any cap.
static const void* len_max(char* x, size_t n) {
  (void)x, (void)n;
  unsigned char* value = map(128 << 10, 0);
  unsigned char* key = map(64 << 10, 0);
  memset(value, 'v', 128 << 10);
  memset(key, 'k', 64 << 10);
  label_t* l = labels(2);
  l[0] = (label_t){S("v"), B(value, SIZE_MAX)};
  l[1] = (label_t){B(key, SIZE_MAX), S("x")};
  return new_set(l, 2);
}

// One 256 MiB value, every byte mapped and written.
static const void* value_256m(char* x, size_t n) {
  (void)x, (void)n;
  const size_t size = (size_t)256 << 20;
  unsigned char* value = map(size, 0);
  memset(value, 'V', size);
  label_t* l = labels(1);
  l[0] = (label_t){S("big"), B(value, size)};
  return new_set(l, 1);
}

// One 1 GiB key, all of it mapped (zero pages past its first 64 KiB).
static const void* key_1g(char* x, size_t n) {
  (void)x, (void)n;
  const size_t size = (size_t)1 << 30;
  unsigned char* key = map(size, MAP_NORESERVE);
  memset(key, 'K', 64 << 10);
  label_t* l = labels(1);
  l[0] = (label_t){B(key, size), S("1g")};
  return new_set(l, 1);
}

// 2^21 labels with distinct keys "0000000", "0000001", ... (hex).
static const void* many_labels(char* x, size_t n) {
  (void)x, (void)n;
  const size_t count = (size_t)1 << 21;
  char* keys = map(count * 8, 0);
  label_t* l = map(count * sizeof(label_t), 0);
  for (size_t i = 0; i < count; ++i) {
    snprintf(keys + i * 8, 8, "%07zx", i);
    l[i] = (label_t){B(keys + i * 8, 7), S("m")};
  }
  return new_set(l, count);
}

static const void* null_values(char* x, size_t n) {
  (void)x, (void)n;
  label_t* l = labels(3);
  l[0] = (label_t){S("a"), {5, NULL}};
  l[1] = (label_t){S("a"), S("second")};
  l[2] = (label_t){S("b"), S("2")};
  return new_set(l, 3);
}

static const void* null_keys(char* x, size_t n) {
  (void)x, (void)n;
  label_t* l = labels(2);
  l[0] = (label_t){kNull, S("x")};
  l[1] = (label_t){S("c"), S("3")};
  return new_set(l, 2);
}

static const void* duplicates(char* x, size_t n) {
  (void)x, (void)n;
  label_t* l = labels(3);
  l[0] = (label_t){S("d"), S("first")};
  l[1] = (label_t){S("d"), S("second")};
  l[2] = (label_t){S("e"), S("")};
  return new_set(l, 3);
}

static const void* bad_value(char* x, size_t n) {
  void* page = unreadable();
  label_t* l = labels(2);
  l[0] = (label_t){S("u"), B(page, 4)};
  l[1] = (label_t){S("w"), S("ok")};
  snprintf(x, n, ",\"value\":\"%p\"", page);
  return new_set(l, 2);
}

// 40 labels "s00".."s39" of 32 KiB each: 1.25 MiB of keys and values.
static const void* set_budget(char* x, size_t n) {
  (void)x, (void)n;
  const size_t count = 40, size = 32 << 10;
  char* keys = map(count * 4, 0);
  unsigned char* values = map(count * size, 0);
  label_t* l = labels(count);
  for (size_t i = 0; i < count; ++i) {
    snprintf(keys + i * 4, 4, "s%02zu", i);
    memset(values + i * size, (int)('0' + i % 10), size);
    l[i] = (label_t){B(keys + i * 4, 3), B(values + i * size, size)};
  }
  return new_set(l, count);
}

static const void* storage_wraps(char* x, size_t n) {
  (void)x, (void)n;
  return new_set((label_t*)(uintptr_t)0xfffffffffffffff0ull, 4);
}

// The set "rewriting" publishes; both it and rewriter() keep changing it.
static set_t* volatile rewritten;
static label_t* rewritten_labels;
static unsigned char* rewritten_bytes;
static void* rewritten_hole;

static const void* rewriting(char* x, size_t n) {
  (void)x, (void)n;
  rewritten_bytes = guarded(64 << 10);
  memset(rewritten_bytes, 'r', 64 << 10);
  rewritten_hole = unreadable();
  rewritten_labels = labels(3);
  rewritten_labels[0] = (label_t){S("r"), S("1")};
  rewritten_labels[1] = (label_t){S("s"), S("2")};
  rewritten_labels[2] = (label_t){S("t"), S("3")};
  rewritten = new_set(rewritten_labels, 3);
  return rewritten;
}

// One store of a pseudo-random shape into the rewritten set; only the
// rewriting thread itself may also switch its published pointer.
static void rewrite_step(uint64_t* state, int may_publish) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  const uint64_t r = *state >> 33;
  set_t* s = rewritten;
  label_t* l = rewritten_labels;
  const size_t counts[] = {0, 1, 3, (size_t)1 << 63, 2};
  const void* bufs[] = {rewritten_bytes, NULL, rewritten_hole, (void*)(uintptr_t)8};
  const size_t lens[] = {1, 65536, (size_t)1 << 40, SIZE_MAX};
  switch (r % (may_publish ? 7 : 6)) {
    case 0:
      __atomic_store_n(&s->count, counts[(r >> 3) % 5], __ATOMIC_RELAXED);
      break;
    case 1:
      __atomic_store_n(&s->storage, (r >> 3) % 3 == 0 ? (label_t*)bufs[(r >> 5) % 4] : l,
                       __ATOMIC_RELAXED);
      break;
    case 2:
      __atomic_store_n(&l[(r >> 3) % 3].value.buf, bufs[(r >> 5) % 4], __ATOMIC_RELAXED);
      break;
    case 3:
      __atomic_store_n(&l[(r >> 3) % 3].key.buf, bufs[(r >> 5) % 4], __ATOMIC_RELAXED);
      break;
    case 4:
      __atomic_store_n(&l[(r >> 3) % 3].value.len, lens[(r >> 5) % 4], __ATOMIC_RELAXED);
      break;
    case 5:
      __atomic_store_n(&l[(r >> 3) % 3].key.len, lens[(r >> 5) % 4], __ATOMIC_RELAXED);
      break;
    default: {
      const void* sets[] = {s, NULL, (void*)(uintptr_t)0xdead000000000000ull,
                            (const unsigned char*)s + 1};
      publish(sets[(r >> 3) % 4]);
    }
  }
}

static void* rewriter(void* unused) {
  (void)unused;
  setpriority(PRIO_PROCESS, 0, 19);
  uint64_t state = 12345;
  for (;;) rewrite_step(&state, 0);
  return NULL;
}

struct shape {
  const char* name;
  build_fn build;
};

static const struct shape kShapes[] = {
    {"good", good},
    {"none", none},
    {"count-2^63", count_2_63},
    {"count-overflow", count_overflow},
    {"bad-storage", bad_storage},
    {"null-storage", null_storage},
    {"bad-set", bad_set},
    {"misaligned-set", misaligned_set},
    {"len-max", len_max},
    {"value-256m", value_256m},
    {"key-1g", key_1g},
    {"many-labels", many_labels},
    {"null-values", null_values},
    {"null-keys", null_keys},
    {"duplicates", duplicates},
    {"bad-value", bad_value},
    {"set-budget", set_budget},
    {"storage-wraps", storage_wraps},
    {"rewriting", rewriting},
};
enum { kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]) };

static void* run_shape(void* arg) {
  const struct shape* s = arg;
  pthread_setname_np(pthread_self(), s->name);
  char extra[256] = "";
  const void* set = s->build(extra, sizeof(extra));
  publish(set);
  pthread_mutex_lock(&print_lock);
  printf("{\"shape\":\"%s\",\"tid\":%d,\"set\":\"%p\"%s}\n", s->name, gettid(), set, extra);
  fflush(stdout);
  pthread_mutex_unlock(&print_lock);
  shape_ready();
  // Built at normal priority; spinning at the lowest, so a reader (and the
  // rest of the machine) still gets the CPU.
  if (s->build == rewriting) {
    setpriority(PRIO_PROCESS, 0, 19);  // Linux: the calling thread only
    uint64_t state = 987654321;
    for (;;) rewrite_step(&state, 1);
  }
  stay_forever(spin);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <dir>/customlabels.node [--spin] [shape ...]\n", argv[0]);
    return 2;
  }
  void* addon = dlopen(argv[1], RTLD_NOW);
  if (addon == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  publish = (void (*)(const void*))dlsym(addon, "fake_publish");
  if (publish == NULL) die("dlsym fake_publish");
  const struct shape* chosen[kShapeCount];
  int n = 0;
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], "--spin") == 0) {
      spin = 1;
      continue;
    }
    int found = 0;
    for (int k = 0; k < kShapeCount; ++k) {
      if (strcmp(argv[i], kShapes[k].name) == 0 && n < kShapeCount) {
        chosen[n++] = &kShapes[k];
        found = 1;
      }
    }
    if (!found) {
      fprintf(stderr, "unknown shape %s\n", argv[i]);
      return 2;
    }
  }
  if (n == 0) {
    for (int k = 0; k < kShapeCount; ++k) chosen[n++] = &kShapes[k];
  }
  int rewrite = 0;
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, run_shape, (void*)chosen[i]) != 0) die("pthread_create");
    rewrite = rewrite || chosen[i]->build == rewriting;
  }
  wait_for_shapes(n);
  if (rewrite) {
    pthread_t t;
    if (pthread_create(&t, NULL, rewriter, NULL) != 0) die("pthread_create");
    pthread_setname_np(t, "rewriter");
  }
  printf("ready\n");
  fflush(stdout);
  char buf[64];
  while (read(0, buf, sizeof(buf)) > 0) {
  }
  return 0;
}
