'use strict';

// The three services bench/services.js and bench/service-instructions.js
// run, installed from npm into .bench-cache/services; the modes each runs
// in (the environment of each mode's server); and the HTTP client both
// load them with.
//
// The services (why: each is a real, widely deployed service whose requests
// go through its own middleware stack, routing and I/O, not a hello world;
// customlabels/register reaches the first two through Express, the third
// through Fastify):
//   verdaccio  the private npm registry (6.10.4): package metadata and
//              tarball downloads from its file storage, through its auth,
//              logging and storage plugins
//   node-red   the flow-based automation runtime (5.0.7): HTTP-in flows
//              whose function nodes run user code in a vm sandbox per
//              message, routed by its Express router
//   platformatic  Platformatic DB (3.67.0), a Fastify 5 service: REST routes
//              generated from an SQLite schema (Fastify's JSON-schema
//              validation and serialisation, its hooks and plugins, pino, a
//              SQL mapper), the way Fastify's own maintainers build an API;
//              Node.js 22.19+, run here on 24 only (better-sqlite3 is
//              built against Node.js 24.18.1's headers: built against
//              24.19+'s, node::ObjectWrap aborts at GC, nodejs/node#65446)
// On Node.js 18 and 20, where verdaccio 6.10 and Node-RED 5 do not run
// (both need 22+), Node-RED runs in its 4.1 line, the last that supports
// them (its engines: node >=18.5), from a cache of its own.
//

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { nodeVersion } = require('../scripts/node-versions');

const root = path.join(__dirname, '..');
const CACHE = path.join(root, '.bench-cache', 'services');
const VERSIONS = { verdaccio: '6.10.4', 'node-red': '5.0.7', '@platformatic/db': '3.67.0' };
// What each Node.js line installs, newest line first: from which major,
// into which folder, which packages.
const LINES = [
  { from: 22, cache: CACHE, versions: VERSIONS },
  { from: 18, cache: path.join(root, '.bench-cache', 'services-node20'), versions: { 'node-red': '4.1.8' } },
];
const lineOf = (major) => LINES.find((l) => major >= l.from);
// The headers better-sqlite3 (Platformatic DB's driver) is built against.
const SQLITE_HEADERS = '24.18.1';

// --- install ------------------------------------------------------------------

// Installs the services of `major`'s line (LINES) once; returns the line.
function install(major = 24) {
  const line = lineOf(major);
  if (line === undefined) throw new Error(`bench/services: no service runs on Node.js ${major} here`);
  if (line.cache === CACHE) installNewest();
  else installLine(line);
  return line;
}

function installLine({ cache, versions }) {
  const pkg = path.join(cache, 'package.json');
  const text = `${JSON.stringify({ name: 'customlabels-bench-services', private: true, dependencies: versions }, null, 2)}\n`;
  const have = fs.existsSync(pkg) ? fs.readFileSync(pkg, 'utf8') : '';
  if (have === text && Object.keys(versions).every((n) => fs.existsSync(path.join(cache, 'node_modules', n, 'package.json')))) return;
  fs.mkdirSync(cache, { recursive: true });
  fs.writeFileSync(pkg, text);
  process.stderr.write(`bench/services: npm install ${Object.entries(versions).map(([n, v]) => `${n}@${v}`).join(' ')} into ${cache}\n`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: cache, stdio: ['ignore', 'ignore', 'inherit'] });
}

function installNewest() {
  const pkg = path.join(CACHE, 'package.json');
  const wanted = {
    name: 'customlabels-bench-services',
    private: true,
    dependencies: VERSIONS,
    // (The registry this machine reaches has no `cjs` dist-tag of
    // node-fetch, which a dependency of verdaccio names: its 2.x is what the
    // tag points to on npmjs.org.)
    overrides: { 'node-fetch@cjs': '2.7.0' },
  };
  fs.mkdirSync(CACHE, { recursive: true });
  const have = fs.existsSync(pkg) ? fs.readFileSync(pkg, 'utf8') : '';
  const text = `${JSON.stringify(wanted, null, 2)}\n`;
  const built = path.join(CACHE, `.better-sqlite3-${SQLITE_HEADERS}`);
  if (have === text && fs.existsSync(path.join(CACHE, 'node_modules', '.bin', 'verdaccio')) && fs.existsSync(built)) return;
  fs.writeFileSync(pkg, text);
  process.stderr.write(`bench/services: npm install ${Object.entries(VERSIONS).map(([n, v]) => `${n}@${v}`).join(' ')} into ${CACHE}\n`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: CACHE, stdio: ['ignore', 'ignore', 'inherit'] });
  // better-sqlite3 for Node.js 24, built against 24.18.1's headers (see
  // platformatic above), with Node.js 24's npm and node-gyp.
  const headers = path.join(CACHE, `node-${SQLITE_HEADERS}`);
  if (!fs.existsSync(path.join(headers, 'include', 'node', 'node.h'))) {
    fs.mkdirSync(headers, { recursive: true });
    const tgz = execFileSync('npm', ['pack', `node-linux-${process.arch}@${SQLITE_HEADERS}`, '--silent'], { cwd: headers, encoding: 'utf8' }).trim().split('\n').pop();
    execFileSync('tar', ['xzf', tgz, '--strip-components=1'], { cwd: headers });
  }
  const node24 = nodeVersion(24);
  process.stderr.write(`bench/services: building better-sqlite3 against Node.js ${SQLITE_HEADERS}'s headers\n`);
  execFileSync('npm', ['rebuild', 'better-sqlite3', '--loglevel=error'], {
    cwd: CACHE,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PATH: `${path.dirname(node24)}:${process.env.PATH}`, npm_config_nodedir: headers },
  });
  fs.writeFileSync(built, '');
}

// --- the services -------------------------------------------------------------

const TENANTS = ['acme', 'globex', 'initech'];

// Each: setup(dir) once per run of this script (a folder it keeps its files
// in), command(dir, port, cache) -> argv after node (`cache`: the folder its
// line installed it in), ready path, requests(i) -> path of the i-th
// request; `package` where its npm name is not its own, `majors` where it
// runs on fewer lines than its package is installed for.
const SERVICES = {
  verdaccio: {
    setup(dir) {
      fs.mkdirSync(path.join(dir, 'storage'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'config.yaml'),
        [
          'storage: ./storage',
          'auth:',
          '  htpasswd:',
          '    file: ./htpasswd',
          '    max_users: -1',
          'uplinks: {}',
          'packages:',
          "  '**':",
          '    access: $all',
          '    publish: $anonymous',
          'log: { type: stdout, format: json, level: error }',
          '',
        ].join('\n'),
      );
      // One package of 20 versions, in verdaccio's own storage layout, as
      // `npm publish` leaves it.
      const pkgDir = path.join(dir, 'storage', 'demo-pkg');
      fs.mkdirSync(pkgDir, { recursive: true });
      const tarball = makeTarball(dir);
      const versions = {};
      const time = {};
      for (let v = 0; v < 20; v++) {
        const ver = `1.${v}.0`;
        const file = `demo-pkg-${ver}.tgz`;
        fs.copyFileSync(tarball.file, path.join(pkgDir, file));
        versions[ver] = {
          name: 'demo-pkg',
          version: ver,
          description: 'a package served by the benchmark',
          dependencies: { 'left-pad': '^1.3.0' },
          dist: { shasum: tarball.shasum, tarball: `http://localhost/demo-pkg/-/${file}` },
        };
        time[ver] = new Date(Date.UTC(2026, 0, 1 + v)).toISOString();
      }
      fs.writeFileSync(
        path.join(pkgDir, 'package.json'),
        JSON.stringify({ name: 'demo-pkg', versions, time, 'dist-tags': { latest: '1.19.0' }, _uplinks: {}, _distfiles: {}, _attachments: {}, _rev: '1-0' }),
      );
    },
    command: (dir, port, cache) => [path.join(cache, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), '--config', path.join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    ready: '/-/ping',
    request: (i) => (i % 2 === 0 ? '/demo-pkg' : `/demo-pkg/-/demo-pkg-1.${i % 20}.0.tgz`),
  },
  'node-red': {
    setup(dir) {
      fs.writeFileSync(
        path.join(dir, 'settings.js'),
        `module.exports = { httpAdminRoot: false, httpNodeRoot: '/', logging: { console: { level: 'error' } }, flowFile: 'flows.json', userDir: ${JSON.stringify(dir)}, editorTheme: { tours: false } };\n`,
      );
      const flows = [
        { id: 'tab', type: 'tab', label: 'bench' },
        { id: 'in1', type: 'http in', z: 'tab', url: '/api/items/:id', method: 'get', wires: [['fn1']] },
        {
          id: 'fn1',
          type: 'function',
          z: 'tab',
          func: "const id = Number(msg.req.params.id);\nconst items = [];\nfor (let i = 0; i < 50; i++) items.push({ id: id * 50 + i, name: 'item ' + (id * 50 + i), price: (i * 7) % 13 });\nmsg.payload = { id, total: items.reduce((s, x) => s + x.price, 0), items };\nreturn msg;",
          outputs: 1,
          wires: [['out1']],
        },
        { id: 'out1', type: 'http response', z: 'tab', statusCode: '200', headers: {}, wires: [] },
        { id: 'in2', type: 'http in', z: 'tab', url: '/api/health', method: 'get', wires: [['out2']] },
        { id: 'out2', type: 'http response', z: 'tab', statusCode: '200', headers: {}, wires: [] },
      ];
      fs.writeFileSync(path.join(dir, 'flows.json'), JSON.stringify(flows));
    },
    command: (dir, port, cache) => [path.join(cache, 'node_modules', 'node-red', 'red.js'), '--settings', path.join(dir, 'settings.js'), '--userDir', dir, '--port', String(port)],
    ready: '/api/health',
    request: (i) => `/api/items/${i % 100}`,
  },
  platformatic: {
    package: '@platformatic/db',
    majors: [24],
    setup(dir) {
      fs.mkdirSync(path.join(dir, 'migrations'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'platformatic.json'),
        JSON.stringify({
          server: { hostname: '127.0.0.1', port: '{PLT_BENCH_PORT}', logger: { level: 'error' } },
          db: { connectionString: 'sqlite://./db.sqlite', graphql: false, openapi: true },
          migrations: { dir: 'migrations', autoApply: true },
        }),
      );
      // 500 items, as a migration writes them.
      fs.writeFileSync(
        path.join(dir, 'migrations', '001.do.sql'),
        [
          'CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price INTEGER NOT NULL, tenant TEXT NOT NULL);',
          'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)',
          "  INSERT INTO items (id, name, price, tenant) SELECT i, 'item ' || i, (i * 7) % 13, 'tenant ' || (i % 3) FROM n;",
          '',
        ].join('\n'),
      );
    },
    command: (dir, port, cache) => [path.join(__dirname, 'apps', 'platformatic-db.mjs'), cache, dir, String(port)],
    ready: '/items/1',
    // An item by id, and a page of 20 filtered by price.
    request: (i) => (i % 2 === 0 ? `/items/${1 + (i % 500)}` : `/items?limit=20&offset=${i % 400}&where.price.gte=${i % 13}`),
  },
};

// A small npm tarball (package/package.json, package/index.js).
function makeTarball(dir) {
  const src = path.join(dir, 'tarball-src', 'package');
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, 'package.json'), JSON.stringify({ name: 'demo-pkg', version: '1.0.0' }));
  fs.writeFileSync(path.join(src, 'index.js'), `module.exports = ${JSON.stringify('x'.repeat(4000))};\n`);
  const file = path.join(dir, 'demo-pkg.tgz');
  execFileSync('tar', ['czf', file, '-C', path.dirname(src), 'package']);
  const shasum = require('node:crypto').createHash('sha1').update(fs.readFileSync(file)).digest('hex');
  return { file, shasum };
}

// --- one run --------------------------------------------------------------------

const freePort = () =>
  new Promise((resolve) => {
    const s = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The status of GET urlPath (0: the request failed). A kept-alive socket the
// server closed as the request left it is a race of the two ends, not the
// server failing: that request is sent once more (Node.js's documented
// pattern, on req.reusedSocket), its latency still counted from the first.
function get(agent, port, urlPath, tenant, retried = false) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent, headers: { 'x-tenant': tenant } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', (err) => resolve(!retried && req.reusedSocket && err.code === 'ECONNRESET' ? get(agent, port, urlPath, tenant, true) : 0));
  });
}

const preload = (file) => `--require ${path.join(__dirname, 'apps', file)}`;
const REGISTER = { NODE_OPTIONS: '--require customlabels/register', CUSTOMLABELS_HEADERS: 'x-tenant=tenant' };
const ENV = {
  none: {},
  'empty-hooks': { NODE_OPTIONS: preload('empty-hooks.js') },
  register: REGISTER,
  'register-nohooks': { ...REGISTER, CUSTOMLABELS_HOOKS: '0' },
  'register-none': { ...REGISTER, CUSTOMLABELS_INTEGRATIONS: 'none' },
};

const exited = (child) => child.exitCode !== null || child.signalCode !== null;

// Stops `child` (SIGTERM) and waits for its exit; nothing if it is gone.
async function stop(child) {
  if (exited(child)) return;
  child.kill('SIGTERM');
  await new Promise((r) => (exited(child) ? r() : child.once('exit', r)));
}

const packageOf = (name) => SERVICES[name]?.package ?? name;
// The release of service `name` on Node.js `major` (undefined: none runs
// there, or no such service any more), and why not, for a skip's message.
const versionOf = (name, major) => {
  const majors = SERVICES[name]?.majors;
  return majors === undefined || majors.includes(major) ? lineOf(major)?.versions[packageOf(name)] : undefined;
};
const whyNot = (name, major) => {
  const lines = LINES.map((l, i) => ({ ...l, to: i === 0 ? null : LINES[i - 1].from - 1 }));
  const majors = SERVICES[name].majors ?? lines.filter((l) => l.versions[packageOf(name)] !== undefined).map((l) => (l.to === null ? `${l.from}+` : `${l.from}–${l.to}`));
  return `runs on Node.js ${majors.join(', ')} here`;
};

module.exports = { install, versionOf, whyNot, TENANTS, SERVICES, ENV, preload, freePort, sleep, get, exited, stop };
