'use strict';

// `--help` of a bench script: the comment block at the top of its file.
const fs = require('node:fs');

module.exports = (file) =>
  `${fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .slice(2)
    .filter((line, i, lines) => lines.slice(0, i + 1).every((l) => l.startsWith('//')))
    .map((line) => line.replace(/^\/\/ ?/, ''))
    .join('\n')}\n`;
