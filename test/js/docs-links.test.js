'use strict';

// The README and docs/ link to each other (and to files of the
// repository): every relative link must land on a file that exists and, with
// an anchor, on a heading of it (GitHub's slugs), so that moving a section
// leaves no link pointing at nothing.

const fs = require('node:fs');
const path = require('node:path');
const { root } = require('./helpers');

// GitHub's anchor for a heading: lower case, punctuation but - and _
// dropped, spaces as -.
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file) {
  const text = fs.readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map();
  const out = new Set();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const pages = ['README.md', 'bench/README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
pages.push(...fs.readdirSync(path.join(root, 'docs', 'integrations')).map((f) => `docs/integrations/${f}`));

test.each(pages)('%s: every relative link lands on a file and a heading that exist', (page) => {
  const text = fs.readFileSync(path.join(root, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const broken = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
    const [file, anchor] = target.split('#');
    const at = file === '' ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), file);
    if (!fs.existsSync(at)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor !== undefined && at.endsWith('.md') && !anchorsOf(at).has(anchor)) broken.push(`${target}: no such heading`);
  }
  expect(broken).toEqual([]);
});

// The README is read on the registry's page and in node_modules too, where
// only what the package ships exists: every relative link of the README,
// and of each page it ships, lands on a file in npm's list of what it packs.
test('every relative link of the README and of each page the package ships lands on a file the package ships', () => {
  const { execFileSync } = require('node:child_process');
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const shipped = new Set(JSON.parse(out.slice(out.indexOf('[')))[0].files.map((f) => f.path));
  const shippedPages = [...shipped].filter((f) => f.endsWith('.md'));
  expect(shippedPages).toEqual(expect.arrayContaining(['README.md', 'docs/versions.md', 'docs/register.md']));
  const dead = [];
  let links = 0;
  for (const page of shippedPages) {
    const text = fs.readFileSync(path.join(root, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const [file] = m[1].split('#');
      if (/^[a-z]+:/.test(m[1]) || file === '') continue;
      links++;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
      if (!shipped.has(target)) dead.push(`${page}: ${m[1]}`);
    }
  }
  expect(links).toBeGreaterThan(50);
  expect(dead).toEqual([]);
});
