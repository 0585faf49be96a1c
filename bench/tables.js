'use strict';

// Writes a table a bench renders into a document, between its
// `<!-- name:start -->` and `<!-- name:end -->` comments.
const fs = require('node:fs');

function replaceBetween(file, name, body) {
  const text = fs.readFileSync(file, 'utf8');
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i === -1 || j === -1) throw new Error(`${file} has no ${start} … ${end}`);
  fs.writeFileSync(file, `${text.slice(0, i + start.length)}\n${body}\n${text.slice(j)}`);
}

module.exports = { replaceBetween };
