// What each known reader (reader_lookups.h) sees on one thread, from what
// ReadThread read while the thread was stopped: inspect's "readers", and
// the labels of --as NAME. reader_verdicts.h sums them up per process. Pure.
#ifndef CUSTOMLABELS_READER_READER_SIGHTS_H_
#define CUSTOMLABELS_READER_READER_SIGHTS_H_

#include <optional>
#include <string>
#include <vector>

#include "abi_reader.h"
#include "label_views.h"
#include "process_context.h"
#include "reader_lookups.h"

namespace customlabels::reader {

// What one reader sees on one thread right now.
struct ReaderSight {
  const KnownReader* reader = nullptr;
  bool sees = false;  // a label set, or a record
  // As it keeps them: a label set's labels (Parca's cut to its limits), or
  // a record's attributes keyed through the process context.
  std::vector<Label> labels;
  std::optional<std::string> trace_id, span_id;  // a record's, when not zero
  uint64_t address = 0;  // the set or record it reached (0: none)
  std::string via;       // what it read them through
  std::string why;       // when it sees nothing: why, in words
};

// The process context's threadlocal.schema_version, which the OpenTelemetry
// readers select on ("" when there is none to read), and why there is none.
std::string SchemaOf(const ProcessContext* context);
std::string WhyNoSchema(const ProcessContext* context);

// Every known reader's sight of the thread `r` was read from.
std::vector<ReaderSight> ThreadSights(const ThreadRead& r, const ProcessContext* context);
// The label set `reader` records on the thread (nullptr: the set as this
// reader read it, TLS pointer or walk); an empty set when it sees none.
DecodedSet SetSeenBy(const ThreadRead& r, const KnownReader* reader);
// The sight of `reader` among `sights`.
const ReaderSight& SightOf(const std::vector<ReaderSight>& sights, KnownReaderId reader);
// {"abi-v1":{"labels":{..}|null,"via":..[,"why":..]},"parca":{..,"walk":..},..}
std::string JsonSights(const std::vector<ReaderSight>& sights, const ThreadRead& r);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_READER_SIGHTS_H_
