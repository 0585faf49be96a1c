'use strict';

// Registries packages keep on the global object (OpenTelemetry's API keeps
// its global context manager in globalThis[Symbol.for('opentelemetry.js.api.1')],
// whichever copy of the API registers it: the app's, one a bundler inlined,
// Next.js's compiled one), and customlabels/register's way into them: the
// key is an accessor, and each registry object assigned to it gets an
// accessor in place of `property` that hands every value assigned to it to
// onValue(value, registry), which returns what is kept (again after an
// unregister deleted it); a value set before register ran is handed over
// now.

// Observes `registry`'s `property` (once).
function observe(registry, property, onValue) {
  if (registry === null || typeof registry !== 'object') return;
  const desc = Object.getOwnPropertyDescriptor(registry, property);
  if (desc !== undefined && (desc.get !== undefined || !desc.configurable)) return; // observed already, or fixed
  let value = desc === undefined ? undefined : desc.value;
  if (value !== undefined && value !== null) value = onValue(value, registry);
  Object.defineProperty(registry, property, {
    configurable: true,
    enumerable: true,
    get: () => value,
    set: (next) => {
      value = next === undefined || next === null ? next : onValue(next, registry);
    },
  });
}

// onValue(value, registry) for every value of globalThis[key][property].
function observeGlobal(key, property, onValue) {
  const desc = Object.getOwnPropertyDescriptor(globalThis, key);
  if (desc !== undefined && (desc.get !== undefined || !desc.configurable)) return;
  let registry = desc === undefined ? undefined : desc.value;
  observe(registry, property, onValue);
  Object.defineProperty(globalThis, key, {
    configurable: true,
    enumerable: false,
    get: () => registry,
    set: (value) => {
      registry = value;
      observe(value, property, onValue);
    },
  });
}

module.exports = { observeGlobal };
