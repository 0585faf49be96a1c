'use strict';

// The command line every bench script takes the same way: --help prints the
// comment block at the top of the script (./usage.js), --name value
// options, and --node MAJOR|PATH (repeatable; a major other than this
// node's is fetched once into .node-versions/MAJOR).

const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { nodeVersion } = require('../scripts/node-versions');

// { args, opt(name, fallback), has(name), nodes(fallback) } of `argv` for
// the script `file`; exits after printing its usage on --help.
function cli(file, argv = process.argv.slice(2)) {
  if (argv.includes('--help')) {
    process.stdout.write(require('./usage')(file));
    process.exit(0);
  }
  const opt = (name, fallback) => {
    const i = argv.indexOf(name);
    return i === -1 ? fallback : argv[i + 1];
  };
  const nodes = (fallback) => {
    const out = argv.flatMap((a, i) => (a === '--node' ? [resolveNode(argv[i + 1])] : []));
    return out.length > 0 ? out : fallback;
  };
  return { args: argv, opt, has: (name) => argv.includes(name), nodes };
}

// A node binary for a path, or a major version (this node when it is that
// major).
function resolveNode(value) {
  if (!/^\d+$/.test(value)) return value;
  return Number(value) === Number(process.versions.node.split('.')[0]) ? process.execPath : nodeVersion(value);
}

// Whether `node` runs AsyncLocalStorage on AsyncContextFrame (by default).
const frameLine = (node) =>
  execFileSync(node, ['-e', 'process.stdout.write(String(require(process.argv[1]).findFrames().reason === undefined))', path.join(__dirname, '..', 'lib', 'core', 'frames.js')], {
    encoding: 'utf8',
  }) === 'true';

module.exports = { cli, resolveNode, frameLine };
