// check --readers: for each known reader (reader_lookups.h), will it see this
// process's labels right now, in this mode, on this Node.js? Answered from
// what each reader's own lookup found on the threads (reader_sights.h) and,
// for a mode no labelled thread shows right now, from the steps of its
// lookup that decide it (the Parca agent's setup, where its CPED read lands
// against where this Node.js keeps the CPED). When a reader sees nothing,
// the answer names the step that fails and what to do. Pure.
#ifndef CUSTOMLABELS_READER_READER_VERDICTS_H_
#define CUSTOMLABELS_READER_READER_VERDICTS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "abi_reader.h"
#include "parca_lookup.h"
#include "process_context.h"
#include "reader_lookups.h"

namespace customlabels::reader {

// One thread of the process as read.
struct ReadThreadOf {
  pid_t tid = 0;
  const ThreadRead* read = nullptr;
};

// The process's mode as read.
struct ProcessMode {
  size_t labelled = 0;           // threads with a label set right now
  size_t labelled_hookfree = 0;  // of them, found by the walk (TLS pointer NULL)
  // Of those, the ones whose set has labels none of whose keys the process
  // context's key map names: the context is not the one customlabels keys
  // its records by (another writer published it first).
  size_t hookfree_unkeyed = 0;
  std::string schema;            // the process context's ("" none)
  // Threads without hooks: labelled ones found by the walk, or the
  // process context's nodejs_v1_dev (which only a thread without hooks sets).
  bool hookfree() const;
  // Threads with hooks: labelled ones with the TLS pointer set, or, with no
  // thread labelled, the process context's tlsdesc_v1_dev.
  bool hooked() const;
  std::string text() const;  // "hooks off (schema ...; 1 thread labelled right now, ...)"
};
ProcessMode ModeOf(const std::vector<ReadThreadOf>& threads, const ProcessContext* context);

struct ReaderVerdict {
  const KnownReader* reader = nullptr;
  enum class Answer {
    kSees,         // every labelled thread, or by its lookup in this mode
    kSeesNothing,  // no labelled thread, or its lookup fails in this mode
    kPartly,       // some labelled threads, or one mode of two
    kWrong,        // another set or record than the thread's, somewhere
    kCannotTell,   // no labelled thread, and nothing says the mode
  } answer = Answer::kCannotTell;
  std::string brief;  // a table cell: "yes (its Node walk)", "no: ..."
  std::string text;   // the answer in words, naming the step that fails
  std::string todo;   // what to do ("" when it sees the labels)
};

std::vector<ReaderVerdict> Verdicts(const AbiTarget& target, const ParcaSetup& parca,
                                    const ProcessContext* context,
                                    const std::vector<ReadThreadOf>& threads);
const char* AnswerName(ReaderVerdict::Answer answer);

// A heading (the Node.js version, the mode) and one entry per reader: its
// answer, why, and what to do.
std::string TextVerdicts(const ParcaSetup& parca, const ProcessMode& mode,
                         const std::vector<ReaderVerdict>& verdicts);
// {"node":"24.21.0"|null,"mode":{"labelled":N,"hookfree":N,"schema":".."},
//  "readers":[{"name":..,"answer":..,"brief":..,"text":..,"todo":..},..]}
std::string JsonVerdicts(const ParcaSetup& parca, const ProcessMode& mode,
                         const std::vector<ReaderVerdict>& verdicts);

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_READER_VERDICTS_H_
