'use strict';

// Finds and loads the V8 unit (src/v8/frame_access.cc) built for this
// Node.js ABI, or says why there is none. It is the one part of customlabels
// built per Node.js ABI: a local build (build/v8, scripts/build-v8.js) wins
// over the prebuilt one (prebuilds/<platform>-<arch>). Node.js itself refuses
// a file built for another ABI; that, and any other failure to load, only
// means labels keep going through the TLS pointer (lib/core/node-context.js).

const fs = require('node:fs');
const path = require('node:path');
const { prebuildTarget } = require('./platform');

const root = path.join(__dirname, '..', '..');
// The interface lib/core/node-context.js speaks (src/v8/frame_access.cc).
const UNIT_VERSION = 4;

const unitFile = (abi = process.versions.modules) => `customlabels-v8-abi${abi}.node`;

function candidates(target = prebuildTarget()) {
  const files = [path.join(root, 'build', 'v8', unitFile())];
  if (target !== null) files.push(path.join(root, 'prebuilds', target, unitFile()));
  return files;
}

// { unit, file, reason }: unit null (with a reason) where there is none.
function loadV8Unit() {
  const failures = [];
  for (const file of candidates()) {
    if (!fs.existsSync(file)) continue;
    try {
      // process.dlopen, not require: the load happens lazily (at a
      // thread's first scope), and must not depend on the module system
      // that loaded this file still being alive (a Jest environment torn
      // down, a vm context gone).
      const loaded = { exports: {} };
      process.dlopen(loaded, file);
      const unit = loaded.exports;
      if (unit.UNIT_VERSION === UNIT_VERSION) return { unit, file, reason: null };
      failures.push(`${file}: interface ${unit.UNIT_VERSION}, expected ${UNIT_VERSION}`);
    } catch (err) {
      failures.push(`${file}: ${err.message.split('\n')[0]}`);
    }
  }
  if (failures.length > 0) return { unit: null, file: null, reason: `the V8 unit did not load: ${failures.join('; ')}` };
  // The install's source build leaves why the unit did not build
  // (scripts/build-v8.js buildRunningUnit).
  let built = 'neither prebuilt nor built';
  try {
    built = `not prebuilt, and its build failed: ${fs.readFileSync(path.join(root, 'build', 'v8', `${unitFile()}.failed`), 'utf8').split('\n')[0]}`;
  } catch {
    // no build was tried
  }
  return {
    unit: null,
    file: null,
    reason: `no V8 unit for this Node.js ABI (${process.versions.modules}, Node.js ${process.version}): ${unitFile()} is ${built}`,
  };
}

module.exports = { loadV8Unit, unitFile, UNIT_VERSION };
