'use strict';

// Knowing when a span's attributes change (customlabels/otel): the SDK's
// Span#setAttribute and #setAttributes are wrapped, through the kit's
// patcher, once per span class (found from a live span: SDK 2.x exports no
// Span class, 2.9+ and 3 keep it in @opentelemetry/sdk-trace), and the
// managers that watch (those with an attribute mapping) are told when a
// mapped attribute of a span is set. A span class without those methods
// (otel/integration.js's internals) is not watched, and its spans' attributes
// give no labels (one warning): a label that could go stale is worse than
// none.

const { Patcher } = require('../kit/patcher');

const patcher = new Patcher('otel-spans');
// The managers told of changes: { _mapped: Set, _attributesChanged(span) },
// added through watch() alone (a manager watches for as long as the
// process runs, as it is the global one).
const managers = new Set();
let batching = 0;
let refused = new WeakSet(); // span classes without the methods (and spans of no class)

function attributesChanged(span) {
  for (const manager of managers) manager._attributesChanged(span);
}

function mapped(key) {
  for (const manager of managers) if (manager._mapped.has(key)) return true;
  return false;
}

// The prototype of `span`'s class that defines setAttribute, or null.
function spanClassOf(span) {
  let proto = Object.getPrototypeOf(span);
  while (proto !== null && !Object.prototype.hasOwnProperty.call(proto, 'setAttribute')) proto = Object.getPrototypeOf(proto);
  return proto === Object.prototype ? null : proto;
}

// Wraps the class of `span` (once); `guard(span)`: whether the class has
// what is wrapped (the integration's check, which warns once if not).
// Whether its attributes are watched: where they are not, a label taken
// from them could go stale, so the managers map none.
function watchSpanClass(span, guard) {
  const proto = spanClassOf(span);
  const key = proto ?? span;
  if (refused.has(key)) return false;
  if (proto !== null && Patcher.isWrapped(proto, 'setAttribute')) return true;
  if (!guard(span)) {
    refused.add(key);
    return false;
  }
  patcher.wrap(proto, 'setAttribute', (setAttribute) =>
    function setAttribute_(key, value) {
      const out = setAttribute.call(this, key, value);
      if (batching === 0 && mapped(key)) attributesChanged(this);
      return out;
    },
  );
  patcher.wrap(proto, 'setAttributes', (setAttributes) =>
    function setAttributes_(attributes) {
      batching++;
      let out;
      try {
        out = setAttributes.call(this, attributes);
      } finally {
        batching--;
      }
      if (batching === 0 && attributes !== null && typeof attributes === 'object' && Object.keys(attributes).some(mapped)) attributesChanged(this);
      return out;
    },
  );
  return true;
}

const watch = (manager) => {
  managers.add(manager);
};

// Every span class back as it was (tests).
function unwatchSpans() {
  patcher.unwrapAll();
  managers.clear();
  refused = new WeakSet();
}

module.exports = { spanClassOf, watchSpanClass, watch, unwatchSpans };
