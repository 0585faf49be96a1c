'use strict';

// What reading a GraphQL document's outline costs (customlabels/graphql,
// lib/integrations/graphql/outline.js: graphql-js's Lexer over the top
// level), next to graphql-js's parse of the same text (which the server
// runs anyway), for a text seen for the first time; and for a text seen
// before (the outline cache). Median of 5 loops, ns per document.
//   taskset -c 0 node bench/graphql-outline.js

const { parse } = require('graphql');
const { scanOperations, operationOfParams } = require('../lib/integrations/graphql/outline');

const small = 'query GetUser($id: ID!) { user(id: $id) { id name email } }';
const fragment = 'fragment F on User { id name avatar(size: 64) friends(first: 10) { edges { node { id name } } } }\n';
const medium = `${fragment}query Feed($after: String) { feed(after: $after) { items { ...F title body createdAt tags } pageInfo { endCursor hasNextPage } } }`;
let large = '';
for (let i = 0; i < 60; i++) large += `fragment F${i} on T { a b c(d: "str ${i}") e { f g h } }\n`;
large += `query Big { ${Array.from({ length: 60 }, (_, i) => `...F${i}`).join(' ')} }`;

function time(fn, text, calls) {
  for (let i = 0; i < calls / 10; i++) fn(text);
  const runs = [];
  for (let k = 0; k < 5; k++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn(text);
    runs.push(Number(process.hrtime.bigint() - start) / calls);
  }
  return runs.sort((a, b) => a - b)[2];
}

console.log(`${process.version}: ns per document (median of 5 loops)`);
console.log('| document | chars | outline, first time (Lexer) | graphql-js parse | outline, seen before |');
console.log('|---|---|---|---|---|');
for (const [name, text] of [['one query', small], ['query + fragment', medium], ['60 fragments', large]]) {
  const calls = text.length > 1000 ? 2000 : 50000;
  const lexer = time(scanOperations, text, calls);
  const parsed = time(parse, text, calls);
  const cached = time((t) => operationOfParams(t, undefined, undefined), text, calls * 10);
  console.log(`| ${name} | ${text.length} | ${lexer.toFixed(0)} | ${parsed.toFixed(0)} | ${cached.toFixed(0)} |`);
}
