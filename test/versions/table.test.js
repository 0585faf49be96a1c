'use strict';

// docs/versions.md's table of tested versions is the matrix this run tests
// (CUSTOMLABELS_WRITE_DOCS=1 writes it).

const path = require('node:path');
const { MATRIX } = require('./matrix');
const { installAll } = require('./cache');
const { renderVersions } = require('./table');
const { checkBlock } = require('../docs/blocks');

test("docs/versions.md's table is the versions this run tests", async () => {
  const dirs = await installAll(MATRIX.map((e) => e.set));
  const { found, actual, expected } = checkBlock(path.join(__dirname, '..', '..', 'docs', 'versions.md'), 'tested-versions', renderVersions(MATRIX, dirs));
  expect(found).toBe(true);
  expect(actual).toBe(expected);
}, 1200000);
