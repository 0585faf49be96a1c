// A target that publishes the OpenTelemetry contexts the reader reads next
// to the labels: the process context (OTEP 4719) by its publication
// protocol, with a hand-encoded protobuf payload, and a thread context
// record (OTEP 4947) per thread through the fake addon's otel_thread_ctx_v1
// (fake_addon.c, which it dlopen()s as Node.js loads the real addon).
//
//   otel_writer <dir>/customlabels.node [--context KIND] [--anon] [--spin]
//
// KIND: good (the default), none, bad-signature, bad-version, bad-schema,
// bad-keys, bad-payload, or updating (a writer thread republishes it all
// the time, alternating two payloads of one layout, each update leaving the
// timestamp 0 for ~2 ms with the payload half-written). --anon publishes in
// an anonymous mapping named with PR_SET_VMA_ANON_NAME instead of a memfd.
// With --spin the shape threads stay on CPU (at nice 19), so `sample` sees
// them. An addon without otel_thread_ctx_v1 (built -DFAKE_ADDON_NO_OTEL)
// gets no records, only the labels.
//
// Each shape runs on its own thread (named after it) and publishes one
// record, well-formed or malformed in one way ("traced" also publishes the
// labels {a: "1"}). Prints one JSON line per shape,
// {"shape":...,"tid":...,"record":"0x...","set":"0x..."}, then one
// {"context":"0x...","payload":"0x...","payload_size":N,"published_at":N}
// (unless none), then "ready", and runs until stdin closes.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "shape_thread.h"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

static void (*publish_set)(const void*);
static void (*publish_record)(void*);
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static const size_t kPage = 4096;
static int spin;

static void* map(size_t n, int prot) {
  void* p = mmap(NULL, n, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) die("mmap");
  return p;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// ---- protobuf, by hand ----
typedef struct {
  uint8_t bytes[4096];
  size_t size;
} buf_t;

static void put(buf_t* b, const void* p, size_t n) {
  if (b->size + n > sizeof(b->bytes)) die("buffer");
  memcpy(b->bytes + b->size, p, n);
  b->size += n;
}
static void varint(buf_t* b, uint64_t v) {
  while (v >= 0x80) {
    uint8_t c = (uint8_t)(v | 0x80);
    put(b, &c, 1);
    v >>= 7;
  }
  uint8_t c = (uint8_t)v;
  put(b, &c, 1);
}
static void field(buf_t* b, unsigned number, const buf_t* message) {
  varint(b, (uint64_t)number << 3 | 2);
  varint(b, message->size);
  put(b, message->bytes, message->size);
}
static void string_field(buf_t* b, unsigned number, const char* s) {
  varint(b, (uint64_t)number << 3 | 2);
  varint(b, strlen(s));
  put(b, s, strlen(s));
}
// KeyValue{key, AnyValue{string_value}}
static void kv_string(buf_t* out, unsigned number, const char* key, const char* value) {
  buf_t any = {.size = 0}, kv = {.size = 0};
  string_field(&any, 1, value);
  string_field(&kv, 1, key);
  field(&kv, 2, &any);
  field(out, number, &kv);
}
// KeyValue{key, AnyValue{int_value}}
static void kv_int(buf_t* out, unsigned number, const char* key, int64_t value) {
  buf_t any = {.size = 0}, kv = {.size = 0};
  varint(&any, 3 << 3 | 0);
  varint(&any, (uint64_t)value);
  string_field(&kv, 1, key);
  field(&kv, 2, &any);
  field(out, number, &kv);
}
// KeyValue{key, AnyValue{array_value{string_value...}}}
static void kv_strings(buf_t* out, unsigned number, const char* key, const char* const* values,
                       int n) {
  buf_t array = {.size = 0}, any = {.size = 0}, kv = {.size = 0};
  for (int i = 0; i < n; ++i) {
    buf_t item = {.size = 0};
    string_field(&item, 1, values[i]);
    field(&array, 1, &item);
  }
  field(&any, 5, &array);
  string_field(&kv, 1, key);
  field(&kv, 2, &any);
  field(out, number, &kv);
}

// The ProcessContext message: resource {service.name, process.pid}, then
// the attributes.
static void build_payload(buf_t* out, const char* kind, const char* service, const char* phase) {
  static const char* const keys[] = {"http.route", "user.id", "tenant"};
  static const char* const bad_keys[] = {"http.route", "", "http.route"};
  buf_t resource = {.size = 0};
  kv_string(&resource, 1, "service.name", service);
  kv_int(&resource, 1, "process.pid", getpid());
  out->size = 0;
  field(out, 1, &resource);
  kv_string(out, 2, "threadlocal.schema_version",
            strcmp(kind, "bad-schema") == 0 ? "tlsdesc_v2" : "tlsdesc_v1_dev");
  if (strcmp(kind, "bad-keys") == 0) {
    kv_strings(out, 2, "threadlocal.attribute_key_map", bad_keys, 3);
  } else {
    kv_strings(out, 2, "threadlocal.attribute_key_map", keys, 3);
  }
  if (phase != NULL) kv_string(out, 2, "phase", phase);
  if (strcmp(kind, "bad-payload") == 0) {
    const uint8_t cut[] = {0x12, 0x80};  // field 2, a length varint that never ends
    put(out, cut, sizeof(cut));
  }
}

// ---- the process context ----
typedef struct {
  char signature[8];
  uint32_t version;
  uint32_t payload_size;
  uint64_t published_at;  // written last, atomically
  uint64_t payload;
} header_t;

static header_t* header;
static buf_t payload;  // where the header points (stays in place: updates rewrite it)

static header_t* map_context(int anon) {
  void* p = MAP_FAILED;
  if (!anon) {
    int fd = memfd_create("OTEL_CTX", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
    if (fd < 0) fd = memfd_create("OTEL_CTX", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd >= 0) {
      if (ftruncate(fd, (off_t)kPage) != 0) die("ftruncate");
      p = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
      close(fd);
    }
  }
  if (p == MAP_FAILED) p = map(kPage, PROT_READ | PROT_WRITE);
  if (madvise(p, kPage, MADV_DONTFORK) != 0) die("madvise");
  // Names an anonymous mapping [anon:OTEL_CTX]; a memfd keeps its own name.
  prctl(0x53564d41 /* PR_SET_VMA */, 0 /* PR_SET_VMA_ANON_NAME */, (unsigned long)p, kPage,
        (unsigned long)"OTEL_CTX");
  return p;
}

static void publish_context(const char* kind) {
  memcpy(header->signature, strcmp(kind, "bad-signature") == 0 ? "OTEL_CTY" : "OTEL_CTX", 8);
  header->version = strcmp(kind, "bad-version") == 0 ? 1 : 2;
  header->payload_size = (uint32_t)payload.size;
  header->payload = (uint64_t)(uintptr_t)payload.bytes;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  __atomic_store_n(&header->published_at, now_ns(), __ATOMIC_RELEASE);
}

static void sleep_ms(long ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

// Republishes forever: timestamp 0, half the other payload, a pause, the
// rest, a new timestamp; then a pause with it published.
static void* updater(void* arg) {
  (void)arg;
  buf_t next[2];
  build_payload(&next[0], "good", "writer-a", "a");
  build_payload(&next[1], "good", "writer-b", "b");
  for (int i = 1;; i ^= 1) {
    __atomic_store_n(&header->published_at, 0, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    const size_t half = next[i].size / 2;
    memcpy(payload.bytes, next[i].bytes, half);
    sleep_ms(2);
    memcpy(payload.bytes + half, next[i].bytes + half, next[i].size - half);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&header->published_at, now_ns(), __ATOMIC_RELEASE);
    sleep_ms(2);
  }
  return NULL;
}

// ---- thread context records ----
typedef struct {
  uint8_t trace_id[16];
  uint8_t span_id[8];
  uint8_t valid;
  uint8_t trace_flags;
  uint16_t attrs_data_size;
  uint8_t attrs_data[];
} __attribute__((packed)) record_t;

static record_t* new_record(void* at, uint8_t trace0, uint8_t flags) {
  record_t* r = at;
  for (int i = 0; i < 16; ++i) r->trace_id[i] = trace0 == 0 ? 0 : (uint8_t)(trace0 + i);
  for (int i = 0; i < 8; ++i) r->span_id[i] = (uint8_t)(0xb0 + i);
  r->valid = 1;
  r->trace_flags = flags;
  r->attrs_data_size = 0;
  return r;
}
static void entry(record_t* r, uint8_t index, const void* value, size_t length) {
  uint8_t* at = r->attrs_data + r->attrs_data_size;
  at[0] = index;
  at[1] = (uint8_t)length;
  memcpy(at + 2, value, length);
  r->attrs_data_size = (uint16_t)(r->attrs_data_size + 2 + length);
}
static void entry_s(record_t* r, uint8_t index, const char* value) {
  entry(r, index, value, strlen(value));
}

typedef struct {
  const char* name;
  void* (*build)(void);
} shape_t;

static void* traced(void) {
  record_t* r = new_record(map(kPage, PROT_READ | PROT_WRITE), 0x01, 1);
  entry_s(r, 0, "/users/:id");
  entry_s(r, 1, "42");
  return r;
}
static void* repeated(void) {
  record_t* r = new_record(map(kPage, PROT_READ | PROT_WRITE), 0xa1, 0);
  entry_s(r, 1, "7");
  entry_s(r, 0, "/a");
  entry_s(r, 0, "/orders");  // the last of an index wins
  return r;
}
static void* no_trace(void) {
  record_t* r = new_record(map(kPage, PROT_READ | PROT_WRITE), 0, 0);
  entry_s(r, 2, "acme");
  return r;
}
static void* invalid(void) {
  record_t* r = new_record(map(kPage, PROT_READ | PROT_WRITE), 0x01, 1);
  entry_s(r, 0, "/never");
  r->valid = 0;
  return r;
}
static void* misaligned(void) {
  return (uint8_t*)new_record(map(kPage, PROT_READ | PROT_WRITE), 0x01, 1) + 1;
}
static void* unreadable(void) { return map(kPage, PROT_NONE); }
static void* cut_entry(void) {
  record_t* r = new_record(map(kPage, PROT_READ | PROT_WRITE), 0x01, 1);
  entry_s(r, 0, "/ok");
  entry_s(r, 1, "123456789");
  r->attrs_data_size = (uint16_t)(r->attrs_data_size - 4);  // cuts the second value
  return r;
}
static void* unknown_key(void) {
  record_t* r = new_record(map(kPage, PROT_READ | PROT_WRITE), 0x01, 1);
  entry_s(r, 5, "x");
  entry_s(r, 1, "9");
  return r;
}
static void* bad_utf8(void) {
  record_t* r = new_record(map(kPage, PROT_READ | PROT_WRITE), 0x01, 1);
  entry(r, 2, "\xff\xfe", 2);
  return r;
}
static void* oversize(void) {
  record_t* r = new_record(map(kPage, PROT_READ | PROT_WRITE), 0x01, 1);
  char v[256];
  for (int i = 0; i < 3; ++i) {
    memset(v, 'a' + i, 255);
    entry(r, (uint8_t)i, v, 255);
  }
  return r;
}
// The header readable, its attrs_data running into an unreadable page.
static void* attrs_unreadable(void) {
  uint8_t* base = map(2 * kPage, PROT_READ | PROT_WRITE);
  if (mprotect(base + kPage, kPage, PROT_NONE) != 0) die("mprotect");
  record_t* r = new_record(base + kPage - 28, 0x01, 1);
  r->attrs_data_size = 100;
  return r;
}
static void* none(void) { return NULL; }

static const shape_t kShapes[] = {
    {"traced", traced},
    {"repeated", repeated},
    {"no-trace", no_trace},
    {"invalid", invalid},
    {"misaligned", misaligned},
    {"unreadable", unreadable},
    {"cut-entry", cut_entry},
    {"unknown-key", unknown_key},
    {"bad-utf8", bad_utf8},
    {"oversize", oversize},
    {"attrs-unmapped", attrs_unreadable},
    {"null", none},
};
enum { kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]) };

// The "traced" thread also publishes labels, {a: "1"}, next to its record.
typedef struct {
  size_t len;
  const char* buf;
} str_t;
static struct { str_t key, value; } label = {{1, "a"}, {1, "1"}};
static struct {
  void* storage;
  size_t count, capacity;
} set = {&label, 1, 1};

static void* run_shape(void* arg) {
  const shape_t* s = arg;
  pthread_setname_np(pthread_self(), s->name);
  void* record = publish_record != NULL ? s->build() : NULL;
  if (publish_record != NULL) publish_record(record);
  const void* labels = s->build == traced ? &set : NULL;
  publish_set(labels);
  pthread_mutex_lock(&print_lock);
  printf("{\"shape\":\"%s\",\"tid\":%d,\"record\":\"%p\",\"set\":\"%p\"}\n", s->name, gettid(),
         record, labels);
  fflush(stdout);
  pthread_mutex_unlock(&print_lock);
  shape_ready();
  stay_forever(spin);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <dir>/customlabels.node [--context KIND] [--anon]\n", argv[0]);
    return 2;
  }
  const char* kind = "good";
  int anon = 0;
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], "--context") == 0 && i + 1 < argc) {
      kind = argv[++i];
    } else if (strcmp(argv[i], "--anon") == 0) {
      anon = 1;
    } else if (strcmp(argv[i], "--spin") == 0) {
      spin = 1;
    } else {
      fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  void* addon = dlopen(argv[1], RTLD_NOW);
  if (addon == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  publish_set = (void (*)(const void*))dlsym(addon, "fake_publish");
  publish_record = (void (*)(void*))dlsym(addon, "fake_otel_publish");  // NULL: an older addon
  if (publish_set == NULL) die("dlsym");
  const int updating = strcmp(kind, "updating") == 0;
  if (strcmp(kind, "none") != 0) {
    header = map_context(anon);
    build_payload(&payload, kind, updating ? "writer-a" : "otel-writer", updating ? "a" : NULL);
    publish_context(kind);
  }
  for (int i = 0; i < kShapeCount; ++i) {
    pthread_t t;
    if (pthread_create(&t, NULL, run_shape, (void*)&kShapes[i]) != 0) die("pthread_create");
  }
  wait_for_shapes(kShapeCount);
  if (header != NULL) {
    printf("{\"context\":\"%p\",\"payload\":\"%p\",\"payload_size\":%u,\"published_at\":%llu}\n",
           (void*)header, (void*)payload.bytes, header->payload_size,
           (unsigned long long)header->published_at);
  }
  if (updating) {
    pthread_t t;
    if (pthread_create(&t, NULL, updater, NULL) != 0) die("pthread_create");
    pthread_setname_np(t, "updater");
  }
  printf("ready\n");
  fflush(stdout);
  char buf[64];
  while (read(0, buf, sizeof(buf)) > 0) {
  }
  return 0;
}
