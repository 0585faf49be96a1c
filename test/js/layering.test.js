'use strict';

// The code flows one way: lib/core (the writer) knows nothing of the
// integrations or of register; lib/integrations knows nothing of register;
// no module of lib/ requires, through others, one that requires it back; and
// no pair of src/reader's modules (x.h with x.cc) includes the other back,
// directly or through others. Read from the sources, so a new require or
// #include that breaks it fails here.

const fs = require('node:fs');
const path = require('node:path');
const { root } = require('./helpers');

function filesUnder(dir, test) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(file, test));
    else if (test(entry.name)) out.push(file);
  }
  return out;
}

// A cycle of the directed graph `edges` (Map node -> Set of nodes), as the
// list of its nodes, or null.
function findCycle(edges) {
  const state = new Map(); // node -> 1 on the stack, 2 done
  const stack = [];
  function visit(node) {
    state.set(node, 1);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 1) return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found !== null) return found;
      }
    }
    stack.pop();
    state.set(node, 2);
    return null;
  }
  for (const node of edges.keys()) {
    if (state.get(node) === undefined) {
      const found = visit(node);
      if (found !== null) return found;
    }
  }
  return null;
}

// lib/'s require graph: file -> the lib/ files it requires (relative
// requires only; comments stripped).
function libGraph() {
  const lib = path.join(root, 'lib');
  const edges = new Map();
  for (const file of filesUnder(lib, (n) => n.endsWith('.js'))) {
    const source = fs.readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '');
    const deps = new Set();
    for (const m of source.matchAll(/require\(\s*'(\.[^']*)'\s*\)/g)) {
      let target;
      try {
        target = require.resolve(path.resolve(path.dirname(file), m[1]));
      } catch {
        continue;
      }
      if (target.startsWith(lib) && target.endsWith('.js')) deps.add(path.relative(root, target));
    }
    edges.set(path.relative(root, file), deps);
  }
  return edges;
}

test('lib/ has no require cycle', () => {
  const edges = libGraph();
  expect(edges.size).toBeGreaterThan(40);
  expect(findCycle(edges)).toBeNull();
});

test.each([
  ['lib/core/', ['lib/integrations/', 'lib/register/']],
  ['lib/integrations/', ['lib/register/']],
])('%s requires nothing of %j', (layer, above) => {
  const bad = [];
  for (const [file, deps] of libGraph()) {
    if (!file.startsWith(layer)) continue;
    for (const dep of deps) if (above.some((a) => dep.startsWith(a))) bad.push(`${file} -> ${dep}`);
  }
  expect(bad).toEqual([]);
});

// Core offers an observer point (lib/core/observers.js) and knows nothing of
// who uses it: no file of it names an integration (customlabels/<name>) or
// a package one integrates (what `next` would match is a word of its own).
test('lib/core names no integration, nor a package one of them integrates', () => {
  const TABLE = require('../../lib/integrations');
  const names = new Set();
  for (const i of TABLE) {
    names.add(`customlabels/${i.name}`);
    for (const pkg of [...Object.keys(i.packages), ...Object.keys(i.testedWith)]) if (pkg !== 'next') names.add(pkg);
  }
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const found = [];
  for (const file of filesUnder(path.join(root, 'lib', 'core'), (n) => n.endsWith('.js'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const name of names) if (new RegExp(`(^|[^\\w@/-])${escape(name)}(?![\\w-])`).test(text)) found.push(`${path.relative(root, file)}: ${name}`);
  }
  expect(names.size).toBeGreaterThan(20);
  expect(found).toEqual([]);
});

test('src/reader: no module (x.h with x.cc) includes itself back through others', () => {
  const dir = path.join(root, 'src', 'reader');
  const moduleOf = (name) => name.replace(/\.(h|cc)$/, '');
  const edges = new Map();
  for (const name of fs.readdirSync(dir).filter((n) => /\.(h|cc)$/.test(n))) {
    const from = moduleOf(name);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const m of fs.readFileSync(path.join(dir, name), 'utf8').matchAll(/^#include "([^"/]+)\.h"/gm)) {
      if (m[1] !== from) edges.get(from).add(m[1]);
    }
  }
  expect(edges.size).toBeGreaterThan(30);
  expect(findCycle(edges)).toBeNull();
});

test('the checks above find a cycle where there is one', () => {
  expect(findCycle(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])]]))).toEqual(['a', 'b', 'c', 'a']);
  expect(findCycle(new Map([['a', new Set(['b'])], ['b', new Set()]]))).toBeNull();
});
