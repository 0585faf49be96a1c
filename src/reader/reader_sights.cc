#include "reader_sights.h"

#include "format.h"
#include "otel_report.h"
#include "reader_profiles.h"

namespace customlabels::reader {

namespace {

// A record's sight: its attributes keyed through the process context.
void SeeRecord(const OtelRecord& record, const ProcessContext* context, const char* via,
               ReaderSight* s) {
  if (!record.has_context()) {
    s->why = std::string(via) + " holds no record";
    return;
  }
  if (!record.ok()) {
    s->why = "the record at " + Hex(record.address) + " is not read: " + record.error;
    return;
  }
  const OtelView v = MakeOtelView(record, context);
  s->sees = true;
  s->address = record.address;
  s->via = via;
  s->trace_id = v.trace_id;
  s->span_id = v.span_id;
  for (const OtelAttribute& a : v.attributes) {
    Label l;
    l.key = a.key;
    l.value = a.value;
    l.key_length = a.key.size();
    l.value_length = a.value.size();
    s->labels.push_back(std::move(l));
  }
}

ReaderSight AbiSight(const ThreadRead& r) {
  ReaderSight s;
  s.reader = &KnownReaderOf(KnownReaderId::kAbiV1);
  if (r.via == "tls" && !r.set.error.empty()) {
    s.why = "custom_labels_current_set cannot be read: " + r.set.error;
  } else if (r.via == "tls" && r.set.address != 0) {
    s.sees = true;
    s.labels = AbiView(r.set);
    s.address = r.set.address;
    s.via = kCurrentSetSymbol;
  } else {
    s.why = r.via == "node-walk"
                ? "custom_labels_current_set is NULL: this thread runs without hooks"
                : "custom_labels_current_set is NULL";
  }
  return s;
}

ReaderSight ParcaSight(const ThreadRead& r) {
  ReaderSight s;
  s.reader = &KnownReaderOf(KnownReaderId::kParca);
  if (!r.parca) {
    s.why = "not read";
    return s;
  }
  const ParcaThread& p = *r.parca;
  if (p.set != 0 && r.parca_set.ok()) {
    s.sees = true;
    s.labels = ProfileView(r.parca_set, *FindReaderProfile("parca"));
    s.address = p.set;
    s.via = p.via;
    return s;
  }
  s.why = std::string(p.native_read ? "custom_labels_current_set is NULL"
                                    : "custom_labels_current_set is not read") +
          "; its Node walk: " + p.walk;
  if (p.set != 0) s.why = "the set at " + Hex(p.set) + " cannot be read: " + r.parca_set.error;
  return s;
}

ReaderSight OtelTlsSight(const ThreadRead& r, const ProcessContext* context, KnownReaderId id) {
  ReaderSight s;
  s.reader = &KnownReaderOf(id);
  if (!r.otel) {
    s.why = "the addon exports no otel_thread_ctx_v1";
  } else if (r.otel_from_walk || !r.otel->has_context()) {
    s.why = "otel_thread_ctx_v1 is NULL";
  } else {
    SeeRecord(*r.otel, context, "otel_thread_ctx_v1", &s);
  }
  return s;
}

ReaderSight OtelWalkSight(const ThreadRead& r, const ProcessContext* context) {
  ReaderSight s;
  s.reader = &KnownReaderOf(KnownReaderId::kOtelNodejs);
  if (r.walk.empty()) {
    s.why = "the addon exports no otel_thread_ctx_nodejs_v1";
  } else if (r.walk != "found") {
    s.why = "its walk ends \"" + r.walk + "\"";
  } else if (!r.walk_record) {
    s.why = "the store's wrapper holds no record";
  } else {
    SeeRecord(*r.walk_record, context, "its walk from otel_thread_ctx_nodejs_v1", &s);
  }
  return s;
}

}  // namespace

std::string SchemaOf(const ProcessContext* c) {
  if (c == nullptr || !c->ok() || !c->schema_version ||
      c->schema_version->kind != AnyValue::Kind::kString) {
    return "";
  }
  return c->schema_version->bytes;
}

std::string WhyNoSchema(const ProcessContext* c) {
  if (c == nullptr) return "the process has no process context (no OTEL_CTX mapping)";
  if (!c->ok()) return "the process context cannot be read: " + c->error;
  return "the process context has no threadlocal.schema_version";
}

std::vector<ReaderSight> ThreadSights(const ThreadRead& r, const ProcessContext* context) {
  std::vector<ReaderSight> out;
  const std::string schema = SchemaOf(context);
  out.push_back(AbiSight(r));
  out.push_back(ParcaSight(r));
  // OTEP 4947 readers take only tlsdesc_v1_dev; the design doc's reader
  // selects its walk by schema.
  ReaderSight tls;
  if (schema == ProcessContext::kSchemaVersion) {
    tls = OtelTlsSight(r, context, KnownReaderId::kOtelTls);
  } else {
    tls.reader = &KnownReaderOf(KnownReaderId::kOtelTls);
    tls.why = schema.empty() ? WhyNoSchema(context)
                             : "the process context's threadlocal.schema_version is \"" + schema +
                                   "\", and it reads only " + ProcessContext::kSchemaVersion;
  }
  out.push_back(std::move(tls));
  ReaderSight node;
  if (schema == ProcessContext::kNodeSchemaVersion) {
    node = OtelWalkSight(r, context);
  } else if (schema == ProcessContext::kSchemaVersion) {
    node = OtelTlsSight(r, context, KnownReaderId::kOtelNodejs);
  } else {
    node.reader = &KnownReaderOf(KnownReaderId::kOtelNodejs);
    node.why = schema.empty() ? WhyNoSchema(context)
                              : "the process context's threadlocal.schema_version is \"" + schema +
                                    "\"";
  }
  out.push_back(std::move(node));
  return out;
}

DecodedSet SetSeenBy(const ThreadRead& r, const KnownReader* reader) {
  if (reader == nullptr) return r.set;
  if (reader->id == KnownReaderId::kAbiV1 && r.via == "tls") return r.set;
  if (reader->id == KnownReaderId::kParca && r.parca && r.parca->set != 0) return r.parca_set;
  return DecodedSet{};
}

const ReaderSight& SightOf(const std::vector<ReaderSight>& sights, KnownReaderId reader) {
  for (const ReaderSight& s : sights) {
    if (s.reader->id == reader) return s;
  }
  return sights.front();
}

std::string JsonSights(const std::vector<ReaderSight>& sights, const ThreadRead& r) {
  std::string out = "{";
  for (size_t i = 0; i < sights.size(); ++i) {
    const ReaderSight& s = sights[i];
    out += (i ? "," : "") + JsonString(s.reader->name) +
           ":{\"labels\":" + JsonLabels(s.sees ? &s.labels : nullptr);
    if (s.trace_id) out += ",\"trace_id\":" + JsonString(*s.trace_id);
    if (s.span_id) out += ",\"span_id\":" + JsonString(*s.span_id);
    if (s.sees) out += ",\"via\":" + JsonString(s.via);
    if (!s.sees) out += ",\"why\":" + JsonString(s.why);
    if (s.reader->id == KnownReaderId::kParca && r.parca) {
      out += ",\"walk\":" + JsonString(r.parca->walk);
    }
    out += "}";
  }
  return out + "}";
}

}  // namespace customlabels::reader
