'use strict';

// Other Node.js versions for builds, tests and benchmarks: the official
// linux binaries from npm (`npm pack node-linux-<arch>@<major>`), unpacked
// once into .node-versions/<major> (x64) or .node-versions/<arch>-<major>;
// bin/node and include/node (the headers the V8 unit builds against) are
// inside.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');

// What `npm pack` of a Node.js package must not inherit from an npm that
// runs this script (prepack of `npm pack --pack-destination DIR --dry-run
// --json`): npm passes its settings on as npm_config_* variables.
const INHERITED = /^npm_config_(pack_destination|dry_run|json|workspaces?|include_workspace_root)$/i;

// The folder of Node.js <major> (or an exact version) for <arch>, fetched
// if missing.
function nodeDir(major, arch = 'x64') {
  const dir = path.join(root, '.node-versions', arch === 'x64' ? String(major) : `${arch}-${major}`);
  if (!fs.existsSync(path.join(dir, 'bin', 'node'))) {
    fs.mkdirSync(dir, { recursive: true });
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !INHERITED.test(k)));
    const tgz = execFileSync('npm', ['pack', `node-linux-${arch}@${major}`, '--silent', '--pack-destination', dir], { cwd: dir, env, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['xzf', path.join(dir, path.basename(tgz)), '--strip-components=1'], { cwd: dir });
    fs.rmSync(path.join(dir, path.basename(tgz)));
  }
  return dir;
}

const nodeVersion = (major) => path.join(nodeDir(major), 'bin', 'node');

module.exports = { nodeDir, nodeVersion };
