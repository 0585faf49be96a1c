'use strict';

const { types } = require('node:util');

// Describes a received value for an error message without running user code
// (no toString, no getters, no Proxy traps).
function describe(value) {
  switch (typeof value) {
    case 'string': {
      const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
      return JSON.stringify(shown);
    }
    case 'bigint':
      return `${String(value)}n`;
    case 'symbol':
    case 'number':
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'function':
      return 'a function';
    default:
      break;
  }
  if (value === null) return 'null';
  if (types.isProxy(value)) return 'a Proxy';
  if (Array.isArray(value)) return 'an array';
  let name;
  try {
    const proto = Object.getPrototypeOf(value);
    const ctor = proto === null ? undefined : Object.getOwnPropertyDescriptor(proto, 'constructor');
    name = ctor && typeof ctor.value === 'function' ? ctor.value.name : undefined;
  } catch {
    name = undefined;
  }
  return typeof name === 'string' && name !== '' ? `an instance of ${name}` : 'an object';
}

function typeName(value) {
  return value === null ? 'null' : typeof value;
}

function invalid(code, expected, what, received) {
  const err = new TypeError(
    `Expected ${expected} for ${what} but received ${describe(received)} of type ${typeName(received)}`,
  );
  err.code = code;
  return err;
}

const codes = Object.freeze({
  INVALID_LABELS: 'ERR_CUSTOMLABELS_INVALID_LABELS',
  INVALID_CALLBACK: 'ERR_CUSTOMLABELS_INVALID_CALLBACK',
  INVALID_KEY: 'ERR_CUSTOMLABELS_INVALID_KEY',
  INVALID_VALUE: 'ERR_CUSTOMLABELS_INVALID_VALUE',
  INVALID_OPTIONS: 'ERR_CUSTOMLABELS_INVALID_OPTIONS',
  INVALID_OPTION: 'ERR_CUSTOMLABELS_INVALID_OPTION',
  CONFIGURED_LATE: 'ERR_CUSTOMLABELS_CONFIGURED_LATE',
  INVALID_PORT: 'ERR_CUSTOMLABELS_INVALID_PORT',
  INVALID_ARG_TYPE: 'ERR_CUSTOMLABELS_INVALID_ARG_TYPE',
});

const invalidLabels = (v) => invalid(codes.INVALID_LABELS, 'a plain object or a Map', 'labels', v);
const invalidCallback = (v) => invalid(codes.INVALID_CALLBACK, 'a function', 'fn', v);
const invalidKey = (v) => invalid(codes.INVALID_KEY, 'a non-empty string', 'a label key', v);
const invalidValue = (key, v) =>
  invalid(
    codes.INVALID_VALUE,
    'a string, number, boolean, bigint, Buffer/Uint8Array, null or undefined',
    `the value of label ${describe(key)}`,
    v,
  );

const invalidOptions = (what, expected, v) => invalid(codes.INVALID_OPTIONS, expected, what, v);
// An integration's option (name '': the options argument itself).
const invalidOption = (name, expected, v) => invalid(codes.INVALID_OPTION, expected, name === '' ? 'options' : `options.${name}`, v);

// An argument of an integration's function that is not what it takes
// (`what`: 'instrument()', ...).
const invalidArgument = (what, expected, v) => invalid(codes.INVALID_ARG_TYPE, expected, what, v);

// A port (worker_threads) without the method it is used for (`method`:
// 'postMessage' or 'on'); null is parentPort on the main thread.
const invalidPort = (method, v) =>
  invalid(
    codes.INVALID_PORT,
    `a Worker or MessagePort (an object with ${method}()${v === null ? '; parentPort is null outside a worker' : ''})`,
    'port',
    v,
  );

// An option that only applies before the thread's first scope.
function configuredLate(option) {
  const err = new Error(
    `configure({ ${option} }) must be called before the first withLabels() of this thread: its mode is decided then`,
  );
  err.code = codes.CONFIGURED_LATE;
  return err;
}

module.exports = {
  codes,
  describe,
  invalidLabels,
  invalidCallback,
  invalidKey,
  invalidValue,
  invalidOptions,
  invalidOption,
  invalidArgument,
  invalidPort,
  configuredLate,
};
