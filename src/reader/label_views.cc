#include "label_views.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "format.h"

namespace customlabels::reader {

namespace {

Label FromSlot(const Slot& s) { return {s.key, s.value, s.index, s.key_length, s.value_length}; }

}  // namespace

std::vector<Label> AbiView(const DecodedSet& set) {
  std::vector<Label> out;
  std::set<std::pair<std::string_view, uint64_t>> seen;
  for (const Slot& s : set.slots) {
    if (s.ignored()) continue;
    if (seen.emplace(s.key, s.key_length).second) out.push_back(FromSlot(s));
  }
  return out;
}

std::vector<Label> ProfileView(const DecodedSet& set, const ReaderProfile& profile) {
  std::vector<Label> out;
  for (const Slot& s : set.slots) {
    if (s.index >= profile.max_labels) break;
    if (s.ignored()) continue;
    Label l = FromSlot(s);
    l.key.resize(std::min(l.key.size(), profile.max_key_bytes));
    l.value.resize(std::min(l.value.size(), profile.max_value_bytes));
    bool duplicate = false;
    for (Label& existing : out) {
      if (existing.key != l.key) continue;
      duplicate = true;
      if (profile.duplicates == ReaderProfile::Duplicates::kLastWins) existing = l;
    }
    if (!duplicate) out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::string> ProfileNotes(const DecodedSet& set, const ReaderProfile& profile) {
  std::vector<std::string> notes;
  if (set.count > profile.max_labels) {
    notes.push_back("only the first " + std::to_string(profile.max_labels) + " of " +
                    std::to_string(set.count) + " labels are read");
  }
  for (const Slot& s : set.slots) {
    if (s.index >= profile.max_labels) break;
    if (s.ignored()) continue;
    const std::string key = s.key.substr(0, profile.max_key_bytes);
    if (s.key_length > profile.max_key_bytes) {
      notes.push_back("key \"" + key + "...\" is cut to " + std::to_string(profile.max_key_bytes) +
                      " bytes (" + std::to_string(s.key_length) + ")");
    }
    if (s.value_length > profile.max_value_bytes) {
      notes.push_back("value of \"" + key + "\" is cut to " +
                      std::to_string(profile.max_value_bytes) + " bytes (" +
                      std::to_string(s.value_length) + ")");
    }
  }
  return notes;
}

Truncation TruncationOf(const DecodedSet& set) {
  Truncation t;
  if (!set.ok()) return t;
  t.count = set.count;
  t.kept = set.slots.size();
  t.labels_limit = set.labels_cut;
  for (const Slot& s : set.slots) {
    if (s.ignored()) continue;
    if (s.key.size() < s.key_length) {
      t.keys.push_back({s.index, s.key, s.key_length, s.key.size(), s.key_cut});
    }
    if (s.value.size() < s.value_length) {
      t.values.push_back({s.index, s.key, s.value_length, s.value.size(), s.value_cut});
    }
  }
  return t;
}

std::string JsonLabels(const std::vector<Label>* labels) {
  if (labels == nullptr) return "null";
  std::string out = "{";
  for (size_t i = 0; i < labels->size(); ++i) {
    if (i != 0) out += ",";
    out += JsonString((*labels)[i].key) + ":" + JsonString((*labels)[i].value);
  }
  return out + "}";
}

std::string TextLabels(const std::vector<Label>* labels) {
  if (labels == nullptr || labels->empty()) return "(none)";
  std::string out;
  for (const Label& l : *labels) {
    if (!out.empty()) out += " ";
    out += TextString(l.key) + "=" + TextString(l.value);
  }
  return out;
}

}  // namespace customlabels::reader
