'use strict';

// Knowing when a span's attributes change (customlabels/otel): the SDK's
// Span#setAttribute and #setAttributes are wrapped once per span class
// (found from a live span: SDK 2.x exports no Span class, and 2.9+ keeps it
// in @opentelemetry/sdk-trace), and managers with an attribute mapping are
// told when a mapped attribute of a span is set.

// Managers with a mapping, told when a mapped attribute of a span changes
// (through the span class's setAttribute/setAttributes, wrapped once).
const watchers = new Set(); // managers: { _mapped: Set, _attributesChanged(span) }
const kSpanPatched = Symbol.for('customlabels.otel.setAttribute');
let batching = 0;

function attributesChanged(span) {
  for (const manager of watchers) manager._attributesChanged(span);
}

function watchSpanClass(span) {
  let proto = Object.getPrototypeOf(span);
  while (proto !== null && !Object.prototype.hasOwnProperty.call(proto, 'setAttribute')) proto = Object.getPrototypeOf(proto);
  if (proto === null || proto === Object.prototype || Object.prototype.hasOwnProperty.call(proto, kSpanPatched)) return;
  try {
    Object.defineProperty(proto, kSpanPatched, { value: true });
    const setAttribute = proto.setAttribute;
    const mapped = (key) => {
      for (const manager of watchers) if (manager._mapped.has(key)) return true;
      return false;
    };
    proto.setAttribute = function setAttribute_(key, value) {
      const out = setAttribute.call(this, key, value);
      if (batching === 0 && mapped(key)) attributesChanged(this);
      return out;
    };
    const setAttributes = proto.setAttributes;
    if (typeof setAttributes === 'function') {
      proto.setAttributes = function setAttributes_(attributes) {
        batching++;
        let out;
        try {
          out = setAttributes.call(this, attributes);
        } finally {
          batching--;
        }
        if (batching === 0 && attributes !== null && typeof attributes === 'object' && Object.keys(attributes).some(mapped)) attributesChanged(this);
        return out;
      };
    }
  } catch {
    // A frozen class: attributes set after activation are not seen.
  }
}

module.exports = { watchSpanClass, watchers };
