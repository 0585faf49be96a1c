#include "sample_table.h"

#include <algorithm>

namespace customlabels::reader {

namespace {

void Put(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }
void Put(std::string* out, const std::string& s) {
  Put(out, s.size());
  out->append(s);
}

// A byte string that tells rows apart: equal exactly when they print alike.
std::string Identity(const SampleRow& r) {
  std::string id;
  Put(&id, r.error);
  Put(&id, uint64_t{r.has_set});
  Put(&id, r.labels.size());
  for (const Label& l : r.labels) {
    Put(&id, l.key);
    Put(&id, l.value);
    Put(&id, l.key_length);
    Put(&id, l.value_length);
  }
  const Truncation& t = r.truncation;
  Put(&id, t.count);
  Put(&id, t.kept);
  Put(&id, t.labels_limit);
  for (const auto* cuts : {&t.keys, &t.values}) {
    Put(&id, cuts->size());
    for (const Truncation::Cut& c : *cuts) {
      Put(&id, c.index);
      Put(&id, c.key);
      Put(&id, c.length);
      Put(&id, c.kept);
      Put(&id, c.limit);
    }
  }
  Put(&id, uint64_t{r.otel.has_value()});
  if (r.otel) {
    Put(&id, r.otel->error);
    Put(&id, r.otel->attributes.size());
    for (const OtelAttribute& a : r.otel->attributes) {
      Put(&id, a.key);
      Put(&id, a.value);
    }
  }
  return id;
}

}  // namespace

SampleRow MakeSampleRow(const DecodedSet& set, const ReaderProfile* profile,
                        const std::optional<std::string>& by) {
  SampleRow row;
  row.error = set.error;
  if (!set.ok()) return row;
  row.has_set = set.has_set();
  row.truncation = TruncationOf(set);
  std::vector<Label> labels = profile != nullptr ? ProfileView(set, *profile) : AbiView(set);
  if (!by) {
    row.labels = std::move(labels);
    return row;
  }
  row.has_set = false;
  for (Label& l : labels) {
    if (l.key == *by && l.key_length == by->size()) {
      row.labels = {std::move(l)};
      row.has_set = true;
      break;
    }
  }
  // Only what concerns that label, so that samples of one value are one row
  // whatever else their sets hold: its own cuts, and where it is missing,
  // whether labels were left unread (it may be among them).
  Truncation& t = row.truncation;
  if (row.has_set || !t.labels_cut()) {
    t.count = t.kept = 0;
    t.labels_limit = kLimitNone;
  }
  const uint64_t index = row.has_set ? row.labels[0].index : UINT64_MAX;
  auto other_label = [index](const Truncation::Cut& c) { return c.index != index; };
  auto& keys = row.truncation.keys;
  auto& values = row.truncation.values;
  keys.erase(std::remove_if(keys.begin(), keys.end(), other_label), keys.end());
  values.erase(std::remove_if(values.begin(), values.end(), other_label), values.end());
  return row;
}

void AddOtelSample(SampleRow* row, const OtelRecord& record, const AttributeKeyMap* key_map) {
  if (record.ok() && !record.has_context()) return;
  SampleOtel otel;
  otel.error = record.error;
  std::vector<std::string> problems;  // inspect shows them; a sample only counts
  uint64_t more = 0;
  otel.attributes = ResolveOtelAttributes(record, key_map, &problems, &more);
  if (record.ok() && record.has_trace()) row->trace_id = record.trace_id;
  row->otel = std::move(otel);
}

void SampleTable::CountTrace(Entry* e, const SampleRow& row) {
  if (!row.trace_id) return;
  ++e->traced;
  if (e->trace_ids.count(*row.trace_id) != 0) return;
  constexpr uint64_t kCost = 64;  // a set node
  if (e->trace_ids.size() >= kMaxTraceIds || kCost > budget_ - std::min(budget_, used_)) {
    e->trace_ids_capped = true;
    return;
  }
  used_ += kCost;
  e->trace_ids.insert(*row.trace_id);
}

void SampleTable::Add(pid_t tid, const std::string& name, SampleRow row) {
  PerThread& th = threads_[tid];
  if (th.samples == 0) th.name = name;
  ++th.samples;
  ++total_;
  if (!row.error.empty()) ++failed_;
  std::string id = Identity(row);
  const auto it = th.index.find(id);
  if (it != th.index.end()) {
    Entry& e = th.rows[it->second];
    ++e.samples;
    CountTrace(&e, row);
    return;
  }
  // The identity and the row hold the bytes about twice, plus bookkeeping.
  const uint64_t cost = 2 * id.size() + 256;
  if (cost > budget_ - std::min(budget_, used_)) {
    if (!th.other) {
      th.other = th.rows.size();
      SampleRow other;
      other.other = true;
      Entry e;
      e.row = std::move(other);
      th.rows.push_back(std::move(e));
    }
    ++th.rows[*th.other].samples;
    return;
  }
  used_ += cost;
  th.index.emplace(std::move(id), th.rows.size());
  Entry e;
  e.samples = 1;
  CountTrace(&e, row);
  e.row = std::move(row);
  th.rows.push_back(std::move(e));
}

std::vector<SampleTable::Thread> SampleTable::Threads() const {
  std::vector<Thread> out;
  for (const auto& [tid, th] : threads_) {
    Thread t{tid, th.name, th.samples, {}};
    for (const Entry& e : th.rows) t.rows.push_back(&e);
    std::stable_sort(t.rows.begin(), t.rows.end(),
                     [](const Entry* a, const Entry* b) { return a->samples > b->samples; });
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace customlabels::reader
