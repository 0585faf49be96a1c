'use strict';

// Finds and loads the native addon, or says why there is none.
//
// One live label slot per process: a thread has one
// `custom_labels_current_set`, and a reader follows one mapping of
// customlabels.node. So before loading a file of its own, this copy of the
// package looks for an addon that any copy (another version in
// node_modules, a bundled one) already mapped into the process, from any
// thread, and uses that one if it speaks the same protocol
// (lib/protocol.js PROTOCOL_VERSION; the package version does not matter).
// If it speaks another, the first copy keeps the slot: this one warns and
// runs without labels.
//
// Otherwise, in order: a local build (build/Release, build/Debug: there only
// if it was built from source, which therefore wins), the prebuilt binary for
// this platform (prebuilds/linux-x64, prebuilds/linux-arm64; glibc).

const fs = require('node:fs');
const path = require('node:path');
const { PROTOCOL_VERSION } = require('./protocol');
const { isSupportedPlatform, readMappings, detectLibc, prebuildTarget } = require('./platform');

const root = path.join(__dirname, '..');
const ADDON = 'customlabels.node';

// customlabels.node files mapped in this process, in address order.
function mappedAddons(maps) {
  const out = [];
  for (const line of maps.split('\n')) {
    // start-end perms offset dev inode   path
    const m = /^\S+\s+\S+\s+\S+\s+\S+\s+\d+\s+(\/.*)$/.exec(line);
    if (m === null) continue;
    const deleted = m[1].endsWith(' (deleted)');
    const file = deleted ? m[1].slice(0, -' (deleted)'.length) : m[1];
    if (path.basename(file) === ADDON && !out.some((a) => a.file === file)) out.push({ file, deleted });
  }
  return out;
}

function candidates(target) {
  const files = ['Release', 'Debug'].map((dir) => path.join(root, 'build', dir, ADDON));
  if (target !== null) files.push(path.join(root, 'prebuilds', target, ADDON));
  return files;
}

function warn(message) {
  process.emitWarning(message, { code: 'CUSTOMLABELS_NO_SLOT' });
}

// { binding, file, shared, reason }: binding null (with a reason) where
// labels cannot be published.
function loadBinding() {
  if (!isSupportedPlatform()) {
    return {
      binding: null,
      reason: `unsupported platform ${process.platform}/${process.arch}: the Custom Label ABI covers Linux on x86-64 and aarch64`,
    };
  }
  const maps = readMappings();
  const live = mappedAddons(maps)[0];
  const ours = candidates(prebuildTarget(process.platform, process.arch, detectLibc(maps)));
  if (live !== undefined) return useLive(live, ours);

  const failures = [];
  for (const file of ours) {
    if (!fs.existsSync(file)) continue;
    let binding;
    try {
      binding = require(file);
    } catch (err) {
      failures.push(`${file}: ${err.message.split('\n')[0]}`);
      continue;
    }
    if (binding.protocolVersion === PROTOCOL_VERSION) return { binding, file, shared: false, reason: null };
    failures.push(`${file}: speaks protocol ${binding.protocolVersion}, this copy ${PROTOCOL_VERSION}`);
  }
  return { binding: null, reason: notLoaded(failures, detectLibc(maps)) };
}

function useLive(live, ours) {
  const owner = `another copy of customlabels holds the label slot of this process (${live.file})`;
  if (live.deleted) {
    const reason = `${owner}, but its file was deleted or replaced since it was loaded`;
    warn(`customlabels runs without labels here: ${reason}`);
    return { binding: null, reason };
  }
  let binding;
  try {
    binding = require(live.file);
  } catch (err) {
    const reason = `${owner}, and loading it here failed: ${err.message.split('\n')[0]}`;
    warn(`customlabels runs without labels here: ${reason}`);
    return { binding: null, reason };
  }
  if (binding.protocolVersion !== PROTOCOL_VERSION) {
    const reason = `${owner} and speaks protocol ${binding.protocolVersion ?? 0}; this copy speaks ${PROTOCOL_VERSION}`;
    warn(`customlabels runs without labels here: ${reason}`);
    return { binding: null, reason };
  }
  return { binding, file: live.file, shared: !ours.includes(live.file), reason: null };
}

function notLoaded(failures, libc) {
  if (failures.length > 0) return `the native addon did not load: ${failures.join('; ')}`;
  const platform = `${process.platform}-${process.arch}`;
  if (libc !== 'glibc') {
    return `no prebuilt binary for ${platform} with ${libc ?? 'an unknown C library'} (prebuilt: glibc) and no local build; installing with a C++17 compiler builds one from source`;
  }
  return `the native addon is missing: no ${path.join('prebuilds', platform, ADDON)} and no local build; reinstall customlabels or run \`npm rebuild customlabels\``;
}

module.exports = { loadBinding, mappedAddons, isSupportedPlatform };
