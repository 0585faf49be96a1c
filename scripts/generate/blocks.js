'use strict';

// Blocks of the README and docs/ that are written, never edited by hand:
// between `<!-- <id>: made by <who>; do not edit -->` and `<!-- /<id> -->`.
// Their writer (scripts/generate.js, test/versions/run.js) renders what a
// block must hold; a test fails when the file holds something else.

const fs = require('node:fs');

const begin = (id) => new RegExp(`<!-- ${id}: made by [^>]*; do not edit -->`);
const end = (id) => `<!-- /${id} -->`;

// The text of block `id` of `text`, or null if it has none.
function blockOf(text, id) {
  const m = begin(id).exec(text);
  if (m === null) return null;
  const at = text.indexOf(end(id), m.index);
  if (at < 0) return null;
  return text.slice(m.index + m[0].length, at).replace(/^\n/, '').replace(/\n$/, '');
}

// `text` with block `id` holding `body`; `text` itself if it has no such
// block.
function replaceBlock(text, id, body) {
  const m = begin(id).exec(text);
  if (m === null) return text;
  const at = text.indexOf(end(id), m.index);
  if (at < 0) return text;
  return `${text.slice(0, m.index + m[0].length)}\n${body}\n${text.slice(at)}`;
}

// Checks (or, with CUSTOMLABELS_WRITE_DOCS=1, writes) block `id` of `file`:
// returns { found, actual, expected } for the test to assert on.
function checkBlock(file, id, body) {
  const text = fs.readFileSync(file, 'utf8');
  if (process.env.CUSTOMLABELS_WRITE_DOCS === '1') fs.writeFileSync(file, replaceBlock(text, id, body));
  const now = fs.readFileSync(file, 'utf8');
  return { found: blockOf(now, id) !== null, actual: blockOf(now, id), expected: body };
}

module.exports = { blockOf, replaceBlock, checkBlock };
