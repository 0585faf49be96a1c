'use strict';

// How customlabels/register sees the frameworks an app loads, without
// require-in-the-middle or an off-thread loader (both measured too slow for
// a 30 ms startup budget: README "Set up in one line"):
//
// - CommonJS, and ESM imports of CommonJS packages: one wrapper of
//   Module._load. A package is seen by the bare name the app requires it by
//   ('express'), or, for an ESM import of a CommonJS package, by the
//   absolute path of the file Node loads (.../node_modules/express/...). Its
//   exports are patched in place (ESM sees the same object), never replaced.
// - ESM-only builds (Hono's, Apollo's, Yoga's, BullMQ's, @koa/router's ESM
//   entries): module.registerHooks (Node >= 22.15 and 23.5), in this thread,
//   no loader thread. A package imported by its bare name gets two lines
//   appended to its entry module: an import of its own namespace and a call
//   that hands it over, so that its classes are patched in place before the
//   app's first request; a few files get a line of their own (esmFile()).
//   Only for an app whose entry is an ES module (entryIsModule()) and that
//   has a package register watches with an ESM build installed
//   (esmBuildInstalled()): hooks put every module load, CommonJS ones too,
//   through their machinery, 25-45 ms for 1,000 modules. Where
//   registerHooks is missing (Node 18, 20, 22.0 to 22.14) ESM-only builds
//   are not seen: README says to add the integration's line there.
//
// Every callback is guarded: a framework this version does not know is a
// warning (CUSTOMLABELS_UNSUPPORTED_FRAMEWORK), never a failed start.

const Module = require('node:module');
const path = require('node:path');

const kLoad = Symbol.for('customlabels.register.load');
const kEsm = Symbol.for('customlabels.register.esm');

const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
const watched = new Map(); // package name -> [onLoad(exports, file)]
const requires = []; // [{ pkg, test(request), onLoad }]: relative requires inside pkg
const esmFiles = []; // [{ pkg, suffix, append(url) }]
const esmBuilds = new Set(); // packages whose ESM build CommonJS never loads

// The package a file belongs to ('@scope/name' or 'name'), if it is in a
// node_modules folder.
function packageOf(file) {
  const at = file.lastIndexOf(NODE_MODULES);
  if (at < 0) return undefined;
  const parts = file.slice(at + NODE_MODULES.length).split(path.sep);
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

// The folder of the package `file` is in.
function packageDir(file) {
  const name = packageOf(file);
  if (name === undefined) return undefined;
  return file.slice(0, file.lastIndexOf(NODE_MODULES) + NODE_MODULES.length + name.length);
}

function guarded(name, fn) {
  try {
    fn();
  } catch (err) {
    process.emitWarning(`customlabels/register could not instrument ${name}: ${err && err.message}`, { code: 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK' });
  }
}

function dispatch(name, exports, file) {
  const handlers = watched.get(name);
  if (handlers === undefined) return;
  for (const onLoad of handlers) guarded(name, () => onLoad(exports, file));
}

function installLoad() {
  if (Module[kLoad] !== undefined) return;
  const load = Module._load;
  function _load(request, parent) {
    const exports = load.apply(this, arguments);
    if (typeof request !== 'string') return exports;
    if (watched.has(request)) {
      let file = request;
      try {
        file = Module._resolveFilename(request, parent);
      } catch {
        // a builtin or a loader's own: the name alone
      }
      dispatch(request, exports, file);
    } else if (request.charCodeAt(0) === 46 /* . */) {
      if (requires.length !== 0 && parent != null && typeof parent.filename === 'string' && parent.filename.includes(NODE_MODULES)) {
        for (const r of requires) {
          if (r.test(request) && packageOf(parent.filename) === r.pkg) guarded(r.pkg, () => r.onLoad(exports, parent.filename));
        }
      }
    } else if (path.isAbsolute(request) && request.includes(NODE_MODULES)) {
      const name = packageOf(request);
      if (name !== undefined && watched.has(name)) dispatch(name, exports, request);
    }
    return exports;
  }
  Object.defineProperty(Module, kLoad, { value: load });
  Module._load = _load;
}

const esmEntries = new Map(); // entry url -> package name

function appendTo(loaded, text) {
  const source = typeof loaded.source === 'string' ? loaded.source : Buffer.from(loaded.source).toString('utf8');
  return { ...loaded, source: `${source}\n${text}\n` };
}

// The lines appended to an ESM module at `url`: it imports its own
// namespace and hands it to the callbacks watching `name`.
function selfReport(name, url) {
  return `;import * as __customlabels_self from ${JSON.stringify(url)};\nglobalThis[Symbol.for('customlabels.register.esm')]?.(${JSON.stringify(name)}, __customlabels_self);`;
}

function installEsm() {
  if (typeof Module.registerHooks !== 'function') return false;
  if (globalThis[kEsm] !== undefined) return true;
  Object.defineProperty(globalThis, kEsm, { value: (name, namespace) => dispatch(name, namespace, name) });
  Module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (watched.has(specifier) && typeof resolved.url === 'string' && resolved.url.startsWith('file:')) esmEntries.set(resolved.url, specifier);
      return resolved;
    },
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (loaded.format !== 'module' || loaded.source == null) return loaded;
      const name = esmEntries.get(url);
      if (name !== undefined) return appendTo(loaded, selfReport(name, url));
      for (const f of esmFiles) {
        if (url.endsWith(f.suffix)) return appendTo(loaded, f.append(url));
      }
      return loaded;
    },
  });
  return true;
}

// onLoad(exports, file) on each load of package `name`: its entry by bare
// name (CommonJS exports or ESM namespace), or any of its files loaded by
// absolute path (onLoad checks what it got); again for another copy.
function watch(name, onLoad) {
  let handlers = watched.get(name);
  if (handlers === undefined) {
    handlers = [];
    watched.set(name, handlers);
  }
  handlers.push(onLoad);
}

// onLoad(exports, parentFile) when a file of package `pkg` requires
// something relative for which test(request) holds (a lazily loaded
// internal module, as Next.js's server).
function watchRequire(pkg, test, onLoad) {
  requires.push({ pkg, test, onLoad });
}

// Appends append(url) to the ESM module at node_modules/<pkg>/<file>
// (registerHooks only): for a function an ESM build exports that must be
// wrapped where it is declared.
function esmFile(pkg, file, append) {
  esmFiles.push({ pkg, suffix: `/node_modules/${pkg}/${file}`, append });
}

// The exports of `file` (relative to the package folder of `entry`) if
// CommonJS has loaded it, else undefined.
function loadedBeside(entry, file) {
  const dir = path.isAbsolute(entry) ? packageDir(entry) : undefined;
  if (dir === undefined) return undefined;
  const cached = require.cache[path.join(dir, file)];
  return cached === undefined ? undefined : cached.exports;
}

// Whether the app's entry is an ES module (.mjs, or .js under "type":
// "module"): only then can it import an ESM-only build. module.registerHooks
// puts every CommonJS load through the hooks machinery too, which costs a
// CommonJS app of 1,000 modules 30-60 ms of startup on Node.js 24 and 26
// (bench/register-startup.js), so a CommonJS app goes without.
function entryIsModule(entry = process.argv[1]) {
  if (typeof entry !== 'string' || entry === '') return false;
  if (entry.endsWith('.mjs') || entry.endsWith('.mts')) return true;
  if (entry.endsWith('.cjs') || entry.endsWith('.cts')) return false;
  const fs = require('node:fs');
  let dir = path.dirname(path.resolve(entry));
  for (;;) {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).type === 'module';
    } catch (err) {
      if (err.code !== 'ENOENT') return false;
    }
    const up = path.dirname(dir);
    if (up === dir) return false;
    dir = up;
  }
}

// `name` (a watched package) has an ES module build of its own, which an
// ESM app imports and CommonJS never loads (not a wrapper of its CommonJS
// build, as Koa's): seeing it needs module.registerHooks.
function watchEsmBuild(name) {
  esmBuilds.add(name);
}

// Whether a package register watches has an ES module build installed where
// the app's entry finds its packages (node_modules of its folder and
// above): only then can an ESM app import one CommonJS never sees.
function esmBuildInstalled(entry = process.argv[1]) {
  if (typeof entry !== 'string' || entry === '') return false;
  const fs = require('node:fs');
  const names = new Set([...esmBuilds, ...esmFiles.map((f) => f.pkg)]);
  const hasImport = (e, depth = 0) =>
    e !== null && typeof e === 'object' && depth < 8 && (Object.prototype.hasOwnProperty.call(e, 'import') || Object.values(e).some((v) => hasImport(v, depth + 1)));
  for (let dir = path.dirname(path.resolve(entry)); ; ) {
    for (const name of names) {
      let pkg;
      try {
        pkg = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      if (pkg !== null && typeof pkg === 'object' && (pkg.type === 'module' || hasImport(pkg.exports))) return true;
    }
    const up = path.dirname(dir);
    if (up === dir) return false;
    dir = up;
  }
}

let started = null;
function start() {
  if (started === null) {
    installLoad();
    started = { esm: entryIsModule() && esmBuildInstalled() && installEsm() };
  }
  return started;
}

module.exports = { watch, watchRequire, watchEsmBuild, esmFile, selfReport, loadedBeside, packageDir, start };
