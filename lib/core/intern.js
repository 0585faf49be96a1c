'use strict';

// Interning of label sets made of string labels: a service whose requests
// repeat the same routes and customers builds each distinct set once.
//
// The table is a trie per parent set (label key -> value -> next level) of
// Maps, so a lookup hashes each short string once; it holds at most
// MAX_SETS sets and starts over when full.
const MAX_SETS = 2048;
const MAX_CHARS = 256;
// Interning pays only when sets repeat: every WINDOW lookups, a hit rate
// under MIN_HIT_RATE turns it off for a pause that starts at PAUSE calls and
// doubles with every further window that misses, up to PAUSE_MAX (labels
// such as request ids never repeat; a window that hits resets the pause).
const WINDOW = 1024;
const MIN_HIT_RATE = 0.25;
const PAUSE = 16384;
const PAUSE_MAX = 262144;

class InternTable {
  constructor() {
    this.levels = new Map(); // parent id (0: none) -> trie
    this.count = 0;
    this.pending = null; // trie node lookup() left for remember(), or null
    this.lookups = 0;
    this.hits = 0;
    this.paused = 0;
    this.nextPause = PAUSE;
  }

  // The interned set for `updates` over `parent` (a LabelSet, a null set,
  // or undefined if unknown). Afterwards remember(set) stores what the caller
  // built for the same pair.
  lookup(parent, updates) {
    this.pending = null;
    if (this.paused > 0) {
      this.paused -= 1;
      return undefined;
    }
    if (!updates.primitive || updates.count === 0) return undefined;
    this.countLookup();
    const parentId = parent === null ? 0 : parent.id;
    let level = this.levels.get(parentId);
    if (level === undefined) {
      level = new Map();
      this.levels.set(parentId, level);
    }
    let chars = 0;
    let node;
    for (let i = 0; i < updates.count; i++) {
      const key = updates.keys[i];
      const value = updates.values[i];
      chars += key.length + (value === null ? 0 : value.length);
      if (chars > MAX_CHARS) return undefined;
      let byValue = level.get(key);
      if (byValue === undefined) {
        byValue = new Map();
        level.set(key, byValue);
      }
      node = byValue.get(value);
      if (node === undefined) {
        node = { set: undefined, next: undefined };
        byValue.set(value, node);
      }
      if (i + 1 < updates.count) {
        if (node.next === undefined) node.next = new Map();
        level = node.next;
      }
    }
    this.pending = node;
    if (node.set !== undefined) this.hits += 1;
    return node.set;
  }

  remember(set) {
    const node = this.pending;
    if (node === null) return;
    this.pending = null;
    if (this.count >= MAX_SETS) {
      this.levels = new Map();
      this.count = 0;
      return;
    }
    node.set = set;
    this.count += 1;
  }

  // The back-off: see WINDOW above.
  countLookup() {
    if (++this.lookups !== WINDOW) return;
    if (this.hits < WINDOW * MIN_HIT_RATE) {
      this.paused = this.nextPause;
      this.nextPause = Math.min(this.nextPause * 2, PAUSE_MAX);
    } else {
      this.nextPause = PAUSE;
    }
    this.lookups = 0;
    this.hits = 0;
  }
}

module.exports = { InternTable, MAX_SETS, WINDOW, PAUSE };
