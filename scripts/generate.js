#!/usr/bin/env node
'use strict';

// `npm run generate`: writes what follows from the table of integrations
// (lib/integrations/index.js), so that adding an integration is its folder,
// its line in the table and its tests:
//
//   package.json            "exports": the package's own, one per integration
//                           with a subpath
//   lib/integrations/<name>/index.mjs
//                           its ES module entry (the CommonJS exports, named)
//   types/modules.d.ts      the names register takes, the modules there are
//   types/<name>.d.ts       made (empty) where an integration has none: its
//                           types are written by hand, and test/js/
//                           integrations/table.test.js fails until they
//                           declare what the module exports
//   README.md               the integration table's rows
//   docs/integrations/<name>.md
//                           the page's header: name, ranges, labels, reach,
//                           private names (a page is made where there is none)
//   test/versions/<name>.test.js
//                           its versions suite (test/versions/matrix.js makes
//                           the releases and one double per private name)
//
// `npm run generate -- --check` writes nothing and lists the files that are
// stale (exit 1); test/js/integrations/table.test.js runs it.

const fs = require('node:fs');
const path = require('node:path');
const { blockOf, replaceBlock } = require('./generate/blocks');
const render = require('./generate/render');

const root = path.join(__dirname, '..');
const at = (...parts) => path.join(root, ...parts);
// The package's own exports, before the integrations'.
const OWN_EXPORTS = {
  '.': { types: './types/index.d.ts', import: './lib/index.mjs', require: './lib/index.js' },
  './register': { types: './types/register.d.ts', import: './lib/register.mjs', require: './lib/register.js' },
  './package.json': './package.json',
};
const begin = (id) => `<!-- ${id}: made by ${render.MADE_BY}; do not edit -->`;
const block = (id, body) => `${begin(id)}\n${body}\n<!-- /${id} -->`;

const read = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);

// [{ file, text (what it must hold) }] for every generated file.
function plan(table = require('../lib/integrations')) {
  const out = [];
  const pkgFile = at('package.json');
  const pkg = JSON.parse(read(pkgFile));
  pkg.exports = render.renderExports(table, OWN_EXPORTS);
  out.push({ file: pkgFile, text: `${JSON.stringify(pkg, null, 2)}\n` });

  const readme = at('README.md');
  out.push({ file: readme, text: replaceBlock(read(readme), 'integrations-table', render.renderIntegrations(table)) });

  out.push({ file: at('types', 'modules.d.ts'), text: render.renderTypesModules(table) });

  for (const i of table) {
    if (i.subpath !== null) {
      out.push({ file: at('lib', 'integrations', i.name, 'index.mjs'), text: render.renderEsm(i, require(at('lib', 'integrations', i.name))) });
      const types = at('types', `${i.name}.d.ts`);
      if (!fs.existsSync(types)) out.push({ file: types, text: `// customlabels/${i.name}: ${i.title}.\nexport {};\n` });
    }
    const page = at('docs', 'integrations', `${i.name}.md`);
    const text = read(page);
    const header = render.renderHeader(i);
    out.push({ file: page, text: text === null ? `${block('integration', header)}\n` : blockOf(text, 'integration') === null ? `${block('integration', header)}\n\n${text}` : replaceBlock(text, 'integration', header) });
    if (Object.keys(i.packages).length + Object.keys(i.testedWith).length > 0) {
      out.push({ file: at('test', 'versions', `${i.name}.test.js`), text: render.renderVersionsTest(i) });
    }
  }
  return out;
}

// The generated files that differ from what the table makes (relative paths).
function stale(table) {
  return plan(table)
    .filter(({ file, text }) => read(file) !== text)
    .map(({ file }) => path.relative(root, file));
}

function main(args) {
  if (args.includes('--check')) {
    const files = stale();
    if (files.length === 0) return 0;
    process.stderr.write(`generated files are stale (run npm run generate): ${files.join(', ')}\n`);
    return 1;
  }
  for (const { file, text } of plan()) {
    if (read(file) === text) continue;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    process.stdout.write(`wrote ${path.relative(root, file)}\n`);
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { plan, stale };
