'use strict';

// What npm's registry says of a package, read with the npm of this machine
// (its registry and cache settings): the versions published, in release
// order, the dist-tags, and the date of each release. For what must follow
// the registry as it is today: the install test's newest and lowest releases
// (test/install/beside.test.js), the newest lane of test:versions, and the
// record of releases the matrix is checked against (test/versions/releases.js).

const { execFile } = require('node:child_process');
const semver = require('semver');

function npmView(pkg) {
  return new Promise((resolve, reject) => {
    execFile('npm', ['view', pkg, 'versions', 'dist-tags', 'time', '--json'], { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 120000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`npm view ${pkg}: ${stderr.trim() || err.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

const cache = new Map();

// { name, versions: [released, non-prerelease, ascending], latest, dates: { version: 'YYYY-MM-DD' } }.
function packument(pkg) {
  if (!cache.has(pkg)) {
    cache.set(
      pkg,
      npmView(pkg).then((view) => {
        const all = Array.isArray(view.versions) ? view.versions : [view.versions];
        const versions = all.filter((v) => semver.valid(v) !== null && semver.prerelease(v) === null).sort(semver.compare);
        const dates = {};
        for (const v of versions) if (view.time && typeof view.time[v] === 'string') dates[v] = view.time[v].slice(0, 10);
        return { name: pkg, versions, latest: view['dist-tags'].latest, dates };
      }),
    );
  }
  return cache.get(pkg);
}

module.exports = { packument };
