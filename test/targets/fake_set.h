// A Custom Label ABI v1 label set as the hostile targets lay one out by hand
// (the ABI's custom_labels_string_t, custom_labels_label_t,
// custom_labels_labelset_t).
#ifndef CUSTOMLABELS_TEST_TARGETS_FAKE_SET_H_
#define CUSTOMLABELS_TEST_TARGETS_FAKE_SET_H_

#include <stddef.h>

typedef struct {
  size_t len;
  const unsigned char* buf;
} str_t;
typedef struct {
  str_t key, value;
} label_t;
typedef struct {
  label_t* storage;
  size_t count;
  size_t capacity;
} set_t;

#endif  // CUSTOMLABELS_TEST_TARGETS_FAKE_SET_H_
