'use strict';

// Finds and loads the native addon, or says why there is none.
//
// One live label slot per process: a thread has one
// `custom_labels_current_set`, and a reader follows one mapping of
// customlabels.node. So before loading a file of its own, this copy of the
// package looks for an addon that any copy (another version in
// node_modules, a bundled one) already mapped into the process, from any
// thread, and uses that one if it speaks the same protocol
// (lib/core/protocol.js PROTOCOL_VERSION; the package version does not matter).
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
const { warnOnce } = require('./warnings');

const root = path.join(__dirname, '..', '..');
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

// Once per thread.
const warn = (message) => warnOnce('no-slot', message, 'CUSTOMLABELS_NO_SLOT');

function requireAddon(file) {
  try {
    return { binding: require(file) };
  } catch (err) {
    return { error: err.message.split('\n')[0] };
  }
}

// Describes a binding's protocol for messages.
const protocolOf = (binding) =>
  binding.protocolVersion === undefined ? 'no protocol version (an older build)' : `protocol ${binding.protocolVersion}`;

// { binding, file, reason }: binding null (with a reason) where labels
// cannot be published.
function loadBinding() {
  if (!isSupportedPlatform()) {
    return {
      binding: null,
      reason: `unsupported platform ${process.platform}/${process.arch}: the Custom Label ABI covers Linux on x86-64 and aarch64`,
    };
  }
  const maps = readMappings();
  const libc = detectLibc(maps);
  const ours = candidates(prebuildTarget(process.platform, process.arch, libc));
  const live = mappedAddons(maps);
  if (live.length > 0) return useLive(live, ours);

  const failures = [];
  for (const file of ours) {
    if (!fs.existsSync(file)) continue;
    const { binding, error } = requireAddon(file);
    if (binding === undefined) {
      failures.push(`${file}: ${error}`);
      continue;
    }
    if (binding.protocolVersion === PROTOCOL_VERSION) return { binding, file, reason: null };
    // Loaded (and, linked -z nodelete, mapped for good): loading another
    // file now would map a second addon, so stop here.
    return { binding: null, reason: `the native addon ${file} speaks ${protocolOf(binding)}; this copy of customlabels speaks ${PROTOCOL_VERSION} (rebuild it: npm rebuild customlabels)` };
  }
  return { binding: null, reason: notLoaded(failures, libc) };
}

// Some customlabels.node is mapped already (this thread or another, this
// copy or another): use it, never map another. Our own file first, then the
// first one that speaks our protocol; requiring a mapped file maps nothing new.
function useLive(live, ours) {
  const usable = live.filter((a) => !a.deleted || fs.existsSync(a.file));
  const ordered = [...usable.filter((a) => ours.includes(a.file)), ...usable.filter((a) => !ours.includes(a.file))];
  const refused = [];
  for (const { file } of ordered) {
    // A replaced file (npm rebuild) still resolves to the object loaded
    // before: the dynamic linker matches it by path.
    const { binding, error } = requireAddon(file);
    if (binding === undefined) {
      refused.push(`${file} (${error})`);
    } else if (binding.protocolVersion === PROTOCOL_VERSION) {
      return { binding, file, reason: null };
    } else {
      refused.push(`${file} (${protocolOf(binding)}; this copy speaks ${PROTOCOL_VERSION})`);
    }
  }
  for (const { file } of live.filter((a) => !usable.includes(a))) refused.push(`${file} (deleted since it was loaded)`);
  const reason = `another copy of customlabels holds the label slot of this process: ${refused.join(', ')}`;
  warn(`customlabels runs without labels here: ${reason}`);
  return { binding: null, reason };
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
