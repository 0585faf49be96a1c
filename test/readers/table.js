'use strict';

// The README's reader x Node.js x mode table, made from what
// `customlabels check --readers --json` answered in test/readers: one row
// per Node.js line and mode, one column per known reader, each cell that
// reader's brief answer.

const README_BEGIN = '<!-- readers-table: made by test/readers (npm run test:readers); do not edit -->';
const README_END = '<!-- /readers-table -->';

// "24.21.0" -> the line it stands for in the table: the newest release of
// a major, or 24.10 (the last 24 the Parca agent's fork walks). Patch
// versions stay out, so a new Node.js release changes the table only if it
// changes an answer.
function lineOf(version, flags) {
  const [major, minor] = version.split('.').map(Number);
  const line = major === 24 && minor <= 10 ? `24.${minor}` : `${major}, newest`;
  return `${line}${flags.length ? `, ${flags.join(' ')}` : ''}`;
}

// rows: [{ version, flags, mode: 'on' | 'off', verdict }] in table order.
function renderTable(rows) {
  const readers = rows[0].verdict.readers;
  const head = `| Node.js | hooks | ${readers.map((r) => r.display).join(' | ')} |`;
  const rule = `|---|---|${readers.map(() => '---').join('|')}|`;
  const body = rows.map(({ version, flags, mode, verdict }) => {
    const cells = verdict.readers.map((r) => (r.answer === 'sees' ? `**${r.brief}**` : r.brief).replace(/\|/g, '\\|'));
    return `| ${lineOf(version, flags)} | ${mode} | ${cells.join(' | ')} |`;
  });
  return [head, rule, ...body].join('\n');
}

// `readme` with the table between the markers replaced by `table`.
function replaceTable(readme, table) {
  const begin = readme.indexOf(README_BEGIN);
  const end = readme.indexOf(README_END);
  if (begin < 0 || end < begin) return readme;
  return `${readme.slice(0, begin + README_BEGIN.length)}\n${table}\n${readme.slice(end)}`;
}

module.exports = { renderTable, replaceTable, README_BEGIN, README_END };
