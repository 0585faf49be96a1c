'use strict';

// customlabels/register and OpenTelemetry: every context manager an SDK
// registers as the global one is wrapped in customlabels/otel's (span ids
// and attributes as labels), whichever @opentelemetry/api copy registers it
// (the app's, one a bundler inlined, Next.js's compiled one): they all keep
// it in one registry object, globalThis[Symbol.for('opentelemetry.js.api.1')],
// and assign that object to that key each time they register something.
// The key is an accessor here, and each assignment gives the registry a
// `context` accessor that wraps what is set (again after an unregister
// deleted it); a manager set before register ran is wrapped now.
// customlabels/otel (and the addon) load only when a manager is set.

const REGISTRY = Symbol.for('opentelemetry.js.api.1');

function observe(registry, options) {
  if (registry === null || typeof registry !== 'object') return;
  const desc = Object.getOwnPropertyDescriptor(registry, 'context');
  if (desc !== undefined && (desc.get !== undefined || !desc.configurable)) return; // observed already, or fixed
  const wrap = (cm) => (cm === undefined || cm === null ? cm : require('../integrations/otel').wrapGlobalContextManager(cm, options));
  let contextManager = desc === undefined ? undefined : wrap(desc.value);
  Object.defineProperty(registry, 'context', {
    configurable: true,
    enumerable: true,
    get: () => contextManager,
    set: (value) => {
      contextManager = wrap(value);
    },
  });
}

function observeGlobalContextManager(options = {}) {
  const desc = Object.getOwnPropertyDescriptor(globalThis, REGISTRY);
  if (desc !== undefined && (desc.get !== undefined || !desc.configurable)) return;
  let registry = desc === undefined ? undefined : desc.value;
  observe(registry, options);
  Object.defineProperty(globalThis, REGISTRY, {
    configurable: true,
    enumerable: false,
    get: () => registry,
    set: (value) => {
      registry = value;
      observe(value, options);
    },
  });
}

module.exports = { observeGlobalContextManager };
