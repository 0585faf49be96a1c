'use strict';

const path = require('node:path');

// The Custom Label ABI exists for Linux on x86-64 and aarch64; elsewhere the
// addon is not built and the API runs without labels.
function isSupportedPlatform(platform = process.platform, arch = process.arch) {
  return platform === 'linux' && (arch === 'x64' || arch === 'arm64');
}

function loadBinding() {
  if (!isSupportedPlatform()) return null;
  const root = path.join(__dirname, '..', 'build');
  const candidates = ['Release', 'Debug'].map((dir) => path.join(root, dir, 'customlabels.node'));
  let lastError;
  for (const file of candidates) {
    try {
      return require(file);
    } catch (err) {
      if (err.code !== 'MODULE_NOT_FOUND') throw err;
      lastError = err;
    }
  }
  const err = new Error(
    `customlabels: the native addon is not built (looked for ${candidates.join(', ')}); run \`npm rebuild customlabels\``,
  );
  err.code = 'ERR_CUSTOMLABELS_NOT_BUILT';
  err.cause = lastError;
  throw err;
}

module.exports = { loadBinding, isSupportedPlatform };
