'use strict';

// Who decides what a patch does: customlabels/register applies every
// integration with its configuration, and an app that wires an integration
// itself takes over, with its own options, from then on, without anything
// being patched twice. Two kinds:
//
// - Options of a patched module (grpc, amqplib: instrument(module, options)):
//   settingsOn(target, key) is the one holder the patches read, shared by
//   copies of the package; take(holder, settings, byRegister) applies
//   register's until the app's first own call, then the app's (its first
//   call wins over later ones).
// - Apps, servers and instances with a middleware or plugin of their own
//   (express, koa, fastify, hapi): markHandWired(app) by that middleware
//   (or by register, finding the app's middleware marked ownMiddleware()),
//   isHandWired(app) where register's would label the request, which then
//   runs under the app's own. Register hands each app it reaches its
//   configuration (handOver), and the app's own middleware merges it
//   (registeredOf): its process and header labels join every request
//   either way, in one scope.

const hasOwn = Object.prototype.hasOwnProperty;
const kHandWired = Symbol.for('customlabels.handWired');
const kRegistered = Symbol.for('customlabels.registered');

// The holder of `target`'s settings under `key` (a Symbol.for of the
// integration), or undefined if it has none yet.
function settingsOn(target, key) {
  return hasOwn.call(target, key) ? target[key] : undefined;
}

// Applies `settings`: 'new' (no holder yet: made, patch now), 'taken' (the
// app's own over register's), or 'kept' (register after anything, or an app
// after the app: unchanged). The holder is { settings, byRegister }.
function take(target, key, settings, byRegister) {
  const holder = settingsOn(target, key);
  if (holder === undefined) {
    Object.defineProperty(target, key, { value: { settings, byRegister }, configurable: true });
    return 'new';
  }
  if (byRegister || !holder.byRegister) return 'kept';
  holder.settings = settings;
  holder.byRegister = false;
  return 'taken';
}

// Forgets the holder (an integration's unpatch()).
function release(target, key) {
  if (hasOwn.call(target, key)) delete target[key];
}

// An app, server or instance: an object, or a function (an Express app).
const isApp = (app) => app !== null && (typeof app === 'object' || typeof app === 'function');

function markHandWired(app) {
  if (isApp(app) && app[kHandWired] !== true) {
    try {
      Object.defineProperty(app, kHandWired, { value: true, configurable: true });
    } catch {
      // a frozen app: register labels each request, the app's own
      // middleware adds its labels on top
    }
  }
}

// A labels() middleware (any copy of customlabels'), marked so that an app
// whose middleware includes one at its root is seen as hand-wired before its
// first request (Express: found then; Koa: at callback(), that is listen()):
// register's wrapper runs first and would otherwise label that one request
// by register's configuration (ignoring an app's route: false).
const kOwnMiddleware = Symbol.for('customlabels.ownMiddleware');
function ownMiddleware(fn) {
  Object.defineProperty(fn, kOwnMiddleware, { value: true });
  return fn;
}
const isOwnMiddleware = (fn) => typeof fn === 'function' && fn[kOwnMiddleware] === true;

const isHandWired = (app) => app !== null && app !== undefined && app[kHandWired] === true;

// Register's configuration ({ labels, headers }) given to an app it reaches;
// whether it was given now (the app's first time).
function handOver(app, registered) {
  if (!isApp(app) || hasOwn.call(app, kRegistered)) return false;
  try {
    Object.defineProperty(app, kRegistered, { value: registered, configurable: true });
    return true;
  } catch {
    return false; // a frozen app: its own middleware builds without register's configuration (it is not marked either: register's labels are under its own)
  }
}

// The configuration register gave `app`, or null.
const registeredOf = (app) => (app !== null && app !== undefined && app[kRegistered] !== undefined ? app[kRegistered] : null);

module.exports = { settingsOn, take, release, markHandWired, ownMiddleware, isOwnMiddleware, isHandWired, handOver, registeredOf };
