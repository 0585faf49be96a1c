'use strict';

// How customlabels/register sees the packages an app loads, without
// require-in-the-middle or an off-thread loader (both measured too slow for
// a 30 ms startup budget: docs/register.md):
//
// - CommonJS, and ESM imports of CommonJS packages: one wrapper of
//   Module._load. A package is seen by a bare name the app requires
//   ('express', 'hono/router/trie-router'), or, for an ESM import of a
//   CommonJS package, by the absolute path of the file Node loads
//   (.../node_modules/express/...); a file of it that its entry loaded, in
//   the module cache beside it; a relative require inside it (a lazily
//   loaded internal module, as Next.js's server). Its exports are patched in
//   place (ESM sees the same object), never replaced.
// - ES module builds (Hono's, Apollo's, Yoga's, @koa/router's):
//   module.registerHooks (Node >= 22.15 and 23.5), in this thread, no loader
//   thread. A package imported by its bare name gets two lines appended to
//   its entry module: an import of its own namespace and a call that hands
//   it over, so that its classes are patched in place before the app's first
//   request; a file of it gets such lines of its own, or a line that
//   reassigns a function it declares. Only for an app whose entry is an ES
//   module and that has such a package installed (wantsEsm()): hooks put
//   every module load, CommonJS ones too, through their machinery, 25-45 ms
//   for 1,000 modules. Where registerHooks is missing (Node 18, 20, 22.0 to
//   22.14) ES module builds are not seen: the docs say to add the
//   integration's line there.
//
// Each callback gets what was loaded and the file it came from; the caller
// (lib/register/index.js) checks versions and guards it.

const Module = require('node:module');
const path = require('node:path');
const { fileURLToPath } = require('node:url');

const kLoad = Symbol.for('customlabels.register.load');
const kEsm = Symbol.for('customlabels.register.esm');

const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

// pkg -> { entry: [onLoad], requests: Map(request -> [onLoad]), files:
// [{ file, onLoad, seen: Set of absolute files handed over }], relative:
// [{ test, onLoad }], esm: boolean }
const packages = new Map();
const esmFiles = []; // [{ pkg, suffix, key, binding }]
const esmHandlers = new Map(); // key -> onLoad(namespace or value, file)

function reachOf(pkg) {
  let p = packages.get(pkg);
  if (p === undefined) {
    p = { entry: [], requests: new Map(), files: [], relative: [], esm: false };
    packages.set(pkg, p);
  }
  return p;
}

// The package a bare request names ('@scope/name/x' -> '@scope/name').
function packageOfRequest(request) {
  const parts = request.split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

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

// The files of `reach` CommonJS has loaded beside `file`, each handed over
// once.
function dispatchFiles(reach, file) {
  const dir = path.isAbsolute(file) ? packageDir(file) : undefined;
  if (dir === undefined) return;
  for (const entry of reach.files) {
    const at = path.join(dir, entry.file);
    if (entry.seen.has(at)) continue;
    const cached = require.cache[at];
    if (cached === undefined) continue;
    entry.seen.add(at);
    entry.onLoad(cached.exports, at);
  }
}

function installLoad() {
  if (Module[kLoad] !== undefined) return;
  const load = Module._load;
  function _load(request, parent) {
    const exports = load.apply(this, arguments);
    if (typeof request !== 'string' || request === '') return exports;
    const c = request.charCodeAt(0);
    if (c === 46 /* . */) {
      if (parent == null || typeof parent.filename !== 'string' || !parent.filename.includes(NODE_MODULES)) return exports;
      const reach = packages.get(packageOf(parent.filename));
      if (reach !== undefined) for (const r of reach.relative) if (r.test(request)) r.onLoad(exports, parent.filename);
      return exports;
    }
    if (path.isAbsolute(request)) {
      if (!request.includes(NODE_MODULES)) return exports;
      const reach = packages.get(packageOf(request));
      if (reach === undefined) return exports;
      for (const onLoad of reach.entry) onLoad(exports, request);
      dispatchFiles(reach, request);
      return exports;
    }
    const reach = packages.get(packageOfRequest(request));
    if (reach === undefined) return exports;
    const handlers = request.includes('/') && packageOfRequest(request) !== request ? reach.requests.get(request) : reach.entry;
    let file = request;
    try {
      file = Module._resolveFilename(request, parent);
    } catch {
      // a loader's own: the name alone
    }
    if (handlers !== undefined) for (const onLoad of handlers) onLoad(exports, file);
    dispatchFiles(reach, file);
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

// The lines appended to an ES module at `url`: it imports its own namespace
// and hands it to the callbacks of `key`.
function selfReport(key, url) {
  return `;import * as __customlabels_self from ${JSON.stringify(url)};\nglobalThis[Symbol.for('customlabels.register.esm')]?.(${JSON.stringify(key)}, __customlabels_self, import.meta.url);`;
}

// The line appended to an ES module that reassigns its function `binding`
// to what the callback of `key` returns (guarded: a module whose binding is
// no longer a function declaration runs as it is, with a warning).
function rebind(key, binding) {
  return `;try { ${binding} = globalThis[Symbol.for('customlabels.register.esm')]?.(${JSON.stringify(key)}, ${binding}, import.meta.url) ?? ${binding}; } catch (err) { process.emitWarning(\`customlabels/register could not instrument ${binding} of \${import.meta.url}: \${err && err.message}\`, { code: 'CUSTOMLABELS_UNSUPPORTED_FRAMEWORK' }); }`;
}

function installEsm() {
  if (typeof Module.registerHooks !== 'function') return false;
  if (globalThis[kEsm] !== undefined) return true;
  Object.defineProperty(globalThis, kEsm, {
    value: (key, value, url) => {
      const onLoad = esmHandlers.get(key);
      return onLoad === undefined ? undefined : onLoad(value, typeof url === 'string' && url.startsWith('file:') ? fileURLToPath(url) : url);
    },
  });
  Module.registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      const reach = packages.get(specifier);
      if (reach !== undefined && reach.esm && typeof resolved.url === 'string' && resolved.url.startsWith('file:')) esmEntries.set(resolved.url, specifier);
      return resolved;
    },
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (loaded.format !== 'module' || loaded.source == null) return loaded;
      const name = esmEntries.get(url);
      if (name !== undefined) return appendTo(loaded, selfReport(`entry\0${name}`, url));
      for (const f of esmFiles) {
        if (url.endsWith(f.suffix)) return appendTo(loaded, f.binding === undefined ? selfReport(f.key, url) : rebind(f.key, f.binding));
      }
      return loaded;
    },
  });
  return true;
}

// onLoad(exports, file) on each load of package `pkg`'s entry (or, with
// `requests`, of those bare names): CommonJS exports, or, with `esm`, its ES
// module build's namespace; again for another copy.
function reachModule(pkg, requests, esm, onLoad) {
  const reach = reachOf(pkg);
  if (requests === undefined) {
    reach.entry.push(onLoad);
  } else {
    for (const request of requests) {
      if (request === pkg) reach.entry.push(onLoad);
      else reach.requests.set(request, [...(reach.requests.get(request) ?? []), onLoad]);
    }
  }
  if (esm) {
    reach.esm = true;
    esmHandlers.set(`entry\0${pkg}`, (namespace, file) => {
      for (const fn of reach.entry) fn(namespace, file);
    });
  }
}

// onLoad(exports, file) for `file` (relative to the package folder) once
// CommonJS has loaded it with the package.
function reachFile(pkg, file, onLoad) {
  reachOf(pkg).files.push({ file, onLoad, seen: new Set() });
}

// onLoad(exports, parentFile) when a file of `pkg` requires something
// relative for which test(request) holds.
function reachRelative(pkg, test, onLoad) {
  reachOf(pkg).relative.push({ test, onLoad });
}

// onLoad(namespace, file) for the ES module at node_modules/<pkg>/<file>, or,
// with `binding`, onLoad(value, file) of that function, whose return value
// it takes (module.registerHooks only).
function reachEsmFile(pkg, file, binding, onLoad) {
  const key = `file\0${pkg}\0${file}\0${binding ?? ''}`;
  esmFiles.push({ pkg, suffix: `/node_modules/${pkg}/${file}`, key, binding });
  esmHandlers.set(key, onLoad);
}

// Whether the app's entry is an ES module (.mjs, or .js under "type":
// "module"): only then can it import an ES module build. module.registerHooks
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

// Whether a package with an ES module build register must see is installed
// where the app's entry finds its packages (node_modules of its folder and
// above): only then can an ESM app import one CommonJS never sees.
function esmBuildInstalled(entry = process.argv[1]) {
  if (typeof entry !== 'string' || entry === '') return false;
  const fs = require('node:fs');
  const names = new Set([...[...packages].filter(([, r]) => r.esm).map(([name]) => name), ...esmFiles.map((f) => f.pkg)]);
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

module.exports = { reachModule, reachFile, reachRelative, reachEsmFile, start };
