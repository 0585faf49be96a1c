'use strict';

// customlabels/register and OpenTelemetry (otel/integration.js): the global
// context manager, wrapped.

const { warnOnce } = require('../../core/warnings');
const { CustomLabelsContextManager } = require('./context-manager');

const kGlobalPatched = Symbol.for('customlabels.otel.globalContextManager');

// The manager `contextManager`, wrapped with `options` (itself if it is one
// of ours already); `integration`: customlabels/otel's descriptor.
function wrapGlobalContextManager(contextManager, options, integration) {
  if (contextManager === null || typeof contextManager !== 'object' || contextManager instanceof CustomLabelsContextManager || contextManager[kGlobalPatched] === true) {
    return contextManager;
  }
  let wrapped;
  try {
    try {
      wrapped = new CustomLabelsContextManager({ ...options, contextManager }, integration);
    } catch (err) {
      if (options.attributes === undefined || /contextManager/.test(err.message)) throw err;
      // The configured attributes are refused: the default mapping.
      warnOnce('otel-attributes', `customlabels/register: ${err.message}; the default attribute mapping applies`, 'CUSTOMLABELS_REGISTER_CONFIG');
      wrapped = new CustomLabelsContextManager({ ...options, attributes: undefined, contextManager }, integration);
    }
    Object.defineProperty(wrapped, kGlobalPatched, { value: true });
    return wrapped;
  } catch (err) {
    warnOnce('otel-global', `customlabels/register: the global context manager is kept unwrapped (${err && err.message}); spans are not published`, 'CUSTOMLABELS_SPAN_LABELS');
    return contextManager;
  }
}

module.exports = { wrapGlobalContextManager };
