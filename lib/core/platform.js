'use strict';

// Where the Custom Label ABI exists (Linux on x86-64 and aarch64), and which
// prebuilt binary fits this process.

const fs = require('node:fs');

function isSupportedPlatform(platform = process.platform, arch = process.arch) {
  return platform === 'linux' && (arch === 'x64' || arch === 'arm64');
}

// This process's mappings (Linux): what is loaded, process-wide, whichever
// thread loaded it. Empty where /proc is not readable.
function readMappings() {
  try {
    return fs.readFileSync('/proc/self/maps', 'utf8');
  } catch {
    return '';
  }
}

// 'glibc' or 'musl', from the C library this process has mapped (or, where
// /proc is not readable, from Node.js's own report); null if it cannot be
// told.
function detectLibc(maps = readMappings()) {
  if (/\/ld-musl-[^/\s]*\.so|\/libc\.musl-[^/\s]*\.so/.test(maps)) return 'musl';
  if (/\/libc\.so\.6(\s|$)|\/libc-2\.\d+\.so/m.test(maps)) return 'glibc';
  if (maps !== '') return null;
  try {
    return process.report.getReport().header.glibcVersionRuntime ? 'glibc' : null;
  } catch {
    return null;
  }
}

// The folder under prebuilds/ for this platform: linux-x64 and linux-arm64
// (glibc), null where no prebuilt binary applies.
function prebuildTarget(platform = process.platform, arch = process.arch, libc = detectLibc()) {
  if (!isSupportedPlatform(platform, arch) || libc !== 'glibc') return null;
  return `${platform}-${arch}`;
}

module.exports = { isSupportedPlatform, readMappings, detectLibc, prebuildTarget };
