// A hostile target for the reader's Node.js walk: each shape runs on its own
// thread (named after the shape), builds a V8-like heap of its own (the
// continuation data slot, an AsyncContextFrame's JSMap and OrderedHashMap, the
// storage handle, a wrapper holding a label set) that is wrong in one way, and
// publishes it through the fake addon (fake_addon.c built with
// -DFAKE_ADDON_NODE) that it dlopen()s, as Node.js loads the real one. No
// custom_labels_current_set is published: the walk is the readers' only way.
//
//   malformed_walks <dir>/customlabels.node [N]
//
// Prints one JSON line per shape, {"shape":...,"tid":...,"set":"0x..."} (the
// label set the heap leads to), then "ready", and runs until stdin closes.
// With N, N more threads (named "chain_crowd") publish one shared heap of
// the long_chain shape, to spend the reader's budget of reads per process.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_node_ctx.h"
#include "fake_set.h"
#include "shape_thread.h"

static void (*node_publish)(const fake_node_ctx_t*);
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void* map(size_t n, int prot) {
  void* p = mmap(NULL, n, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) die("mmap");
  return p;
}

static uint64_t* words(size_t n) { return map(n * 8, PROT_READ | PROT_WRITE); }
static uint64_t tagged(const void* p) { return (uint64_t)(uintptr_t)p + 1; }
static uint64_t smi(int64_t v) { return (uint64_t)v << 32; }

// The heap of one thread, as V8 lays it out on 64-bit Linux: what each shape
// then spoils.
typedef struct {
  fake_node_ctx_t d;
  uint64_t* slot;     // the continuation data slot: the frame
  uint64_t* frame;    // JSMap: map, properties, elements, table
  uint64_t* table;    // OrderedHashMap: map, length, elements, deleted, buckets, ...
  uint64_t* wrapper;  // JSObject: map, properties, elements, set, record
  int64_t buckets;
  set_t* set;
} heap_t;

static uint64_t* entry(heap_t* h, int64_t i) { return &h->table[5 + h->buckets + 3 * i]; }

static void build(heap_t* h, int64_t buckets) {
  const uint64_t undefined = tagged(words(1));
  const uint64_t map_word = tagged(words(1));
  const int64_t capacity = 2 * buckets;
  h->buckets = buckets;
  label_t* l = (label_t*)words(4);
  l[0] = (label_t){{1, (const unsigned char*)"a"}, {1, (const unsigned char*)"1"}};
  l[1] = (label_t){{1, (const unsigned char*)"b"}, {1, (const unsigned char*)"2"}};
  h->set = (set_t*)words(3);
  *h->set = (set_t){l, 2, 2};
  h->wrapper = words(5);
  h->wrapper[0] = h->wrapper[1] = h->wrapper[2] = map_word;
  h->wrapper[3] = (uint64_t)(uintptr_t)h->set;
  h->wrapper[4] = 0;  // no record
  h->table = words((size_t)(5 + buckets + 3 * capacity));
  h->table[0] = map_word;
  h->table[1] = smi(3 + buckets + 3 * capacity);
  h->table[2] = smi(1);
  h->table[3] = smi(0);
  h->table[4] = smi(buckets);
  for (int64_t b = 0; b < buckets; ++b) h->table[5 + b] = smi(-1);
  for (int64_t i = 0; i < capacity; ++i) {
    entry(h, i)[0] = entry(h, i)[1] = undefined;
    entry(h, i)[2] = smi(-1);
  }
  uint64_t* als = words(1);
  uint64_t* handle = words(1);
  *handle = tagged(als);
  const int32_t hash = 7;
  entry(h, 0)[0] = *handle;
  entry(h, 0)[1] = tagged(h->wrapper);
  h->table[5 + (hash & (buckets - 1))] = smi(0);
  h->frame = words(4);
  h->frame[0] = h->frame[1] = h->frame[2] = map_word;
  h->frame[3] = tagged(h->table);
  h->slot = words(1);
  *h->slot = tagged(h->frame);
  h->d = (fake_node_ctx_t){
      (uint64_t)(uintptr_t)h->slot, (uint64_t)(uintptr_t)handle, hash, 32, {0}, undefined};
}

static void walk_good(heap_t* h) { (void)h; }
static void gate_closed(heap_t* h) { h->d.cped_slot = 0; }
static void no_frame(heap_t* h) { *h->slot = h->d.undefined_addr; }
static void detached(heap_t* h) { entry(h, 0)[1] = h->d.undefined_addr; }
static void frame_smi(heap_t* h) { *h->slot = smi(42); }
static void frame_garbage(heap_t* h) { *h->slot = 0x4141414141414141ULL; }
static void table_unreadable(heap_t* h) { h->frame[3] = tagged(map(4096, PROT_NONE)); }
static void counts_forwarded(heap_t* h) { h->table[2] = tagged(h->table); }
static void counts_out_of_range(heap_t* h) { h->table[2] = smi(2 * h->buckets + 1); }
static void buckets_huge(heap_t* h) {
  h->table[1] = smi(INT32_MAX);
  h->table[4] = smi((int64_t)1 << 30);
}
static void record_slot_misaligned(heap_t* h) { h->d.record_slot_offset = 41; }
static void store_smi(heap_t* h) { entry(h, 0)[1] = smi(3); }
static void set_unreadable(heap_t* h) {
  h->set = map(4096, PROT_NONE);
  h->wrapper[3] = (uint64_t)(uintptr_t)h->set;
}
// 2^17 entries of other storages in one chain (2^16 buckets, full): a walk
// that followed it to its end would make 2^18 reads.
static void long_chain(heap_t* h) {
  const int64_t n = 2 * h->buckets;
  for (int64_t i = 0; i < n; ++i) {
    entry(h, i)[0] = tagged(h->wrapper);  // an object, never the storage
    entry(h, i)[2] = smi(i + 1 < n ? i + 1 : -1);
  }
  h->table[2] = smi(n);
}
// 128 entries of other storages in one chain that closes on itself.
static void cyclic_chain(heap_t* h) {
  for (int64_t i = 0; i < 2 * h->buckets; ++i) {
    entry(h, i)[0] = tagged(words(1));
    entry(h, i)[2] = smi((i + 1) % (2 * h->buckets));
  }
  h->table[2] = smi(2 * h->buckets);
}

struct shape {
  const char* name;
  void (*spoil)(heap_t*);
  int64_t buckets;  // 0: 64
};

static const struct shape kShapes[] = {
    {"walk_good", walk_good},
    {"gate_closed", gate_closed},
    {"no_frame", no_frame},
    {"detached", detached},
    {"frame_smi", frame_smi},
    {"frame_garbage", frame_garbage},
    {"table_unreadable", table_unreadable},
    {"counts_forwarded", counts_forwarded},
    {"counts_out_of_range", counts_out_of_range},
    {"buckets_huge", buckets_huge},
    {"record_slot_misaligned", record_slot_misaligned},
    {"store_smi", store_smi},
    {"set_unreadable", set_unreadable},
    {"cyclic_chain", cyclic_chain},
    {"long_chain", long_chain, (int64_t)1 << 16},
};
enum { kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]) };

static void* run_shape(void* arg) {
  const struct shape* s = arg;
  // Thread names are at most 15 bytes.
  char name[16];
  snprintf(name, sizeof(name), "%s", s->name);
  pthread_setname_np(pthread_self(), name);
  heap_t h;
  build(&h, s->buckets != 0 ? s->buckets : 64);
  s->spoil(&h);
  node_publish(&h.d);
  pthread_mutex_lock(&print_lock);
  printf("{\"shape\":\"%s\",\"tid\":%d,\"set\":\"%p\"}\n", s->name, gettid(), (void*)h.set);
  fflush(stdout);
  pthread_mutex_unlock(&print_lock);
  shape_ready();
  stay_forever(0);
  return NULL;
}

static heap_t crowd_heap;

static void* run_crowd(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "chain_crowd");
  node_publish(&crowd_heap.d);
  shape_ready();
  stay_forever(0);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s <dir>/customlabels.node [N]\n", argv[0]);
    return 2;
  }
  const int crowd = argc == 3 ? atoi(argv[2]) : 0;
  void* addon = dlopen(argv[1], RTLD_NOW);
  if (addon == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  node_publish = (void (*)(const fake_node_ctx_t*))dlsym(addon, "fake_node_publish");
  if (node_publish == NULL) die("dlsym fake_node_publish");
  for (int i = 0; i < kShapeCount; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, run_shape, (void*)&kShapes[i]) != 0) die("pthread_create");
  }
  if (crowd > 0) {
    build(&crowd_heap, (int64_t)1 << 16);
    long_chain(&crowd_heap);
  }
  for (int i = 0; i < crowd; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, run_crowd, NULL) != 0) die("pthread_create");
  }
  wait_for_shapes(kShapeCount + crowd);
  printf("ready\n");
  fflush(stdout);
  char buf[64];
  while (read(0, buf, sizeof(buf)) > 0) {
  }
  return 0;
}
