'use strict';

// GraphQL (Apollo Server, GraphQL Yoga, envelop on graphql-js) in
// test/versions (test/versions/suites.js says what a suite holds).

const semver = require('semver');
const e2e = require('../../js/integrations/e2e/graphql');
const { HTTP } = require('./labels');

// Apollo 4 on Express 4 (its own express4 middleware), Apollo 5 on Express
// 5, Yoga on node:http by hand and mounted in Express with register,
// envelop on node:http by hand (graphql-js no server takes).
const variantOf = (entry, wiring) =>
  entry.variant === 'apollo4' ? 'apollo4-express4' : entry.variant === 'apollo5' ? 'apollo5-express5' : entry.variant === 'envelop' ? 'envelop' : wiring === 'by hand' ? 'yoga-http' : 'yoga-express';
// An operation's description parses from graphql-js 16.11.
const descriptions = (entry) => semver.gte(entry.set.packages.graphql, '16.11.0');

const apolloSet = (v) =>
  semver.major(v) === 4
    ? { set: { packages: { '@apollo/server': v, express: '4.22.3', graphql: '16.15.0' } }, variant: 'apollo4' }
    : { set: { packages: { '@apollo/server': v, express: '5.3.0', '@as-integrations/express5': '1.1.2', graphql: '16.15.0' } }, variant: 'apollo5' };
// Yoga, with the graphql-js a new app gets beside it (17 from Yoga 5.22,
// which first accepts it).
const yogaSet = (v, graphql = semver.gte(v, '5.22.0') ? '17.1.0' : '16.15.0') => ({ set: { packages: { 'graphql-yoga': v, express: '5.3.0', graphql } }, variant: 'yoga' });
// graphql-js below 15.7 (Yoga answers a document that does not parse with a
// 500 there, and takes none below 15.2): envelop on node:http, by hand.
const envelopSet = (graphql) => ({ set: { packages: { graphql, '@envelop/core': '5.6.1' } }, variant: 'envelop', wirings: ['by hand'] });

module.exports = {
  published: ['graphql.operation', 'graphql.type', ...HTTP],
  run: (entry, env, { wiring }) => e2e.run({ variant: variantOf(entry, wiring), env: { ...env, CUSTOMLABELS_FIXTURE_UNALIASED: '1' }, descriptions: descriptions(entry) }),
  served: (result, entry, { wiring }) => e2e.served(result, variantOf(entry, wiring), { descriptions: descriptions(entry) }),
  checkpoints: (result, entry, { wiring }) => e2e.checkpoints(result, variantOf(entry, wiring)),
  builders: {
    '@apollo/server': apolloSet,
    'graphql-yoga': (v) => yogaSet(v),
    graphql: (v) => (semver.gte(v, '15.7.0') ? yogaSet('5.24.1', v) : envelopSet(v)),
  },
  hand: (entry, { unsupported }) => [
    entry('@apollo/server', '4.0.0-rc.16', 'just outside (a 4.0.0 prerelease; npm has no release below 4)', unsupported),
    entry('graphql-yoga', '5.13.1', 'getResultForParams an instance field'),
    entry('graphql-yoga', '5.22.0', 'the first Yoga that takes graphql-js 17, with 17.0.0', { packages: { graphql: '17.0.0' } }),
    entry('graphql-yoga', '5.24.1', 'newest Yoga with graphql-js 16', { packages: { graphql: '16.15.0' } }),
  ],
  notes: {
    'graphql-yoga@5.10.11': 'no setParamsHandler',
    'graphql-yoga@5.11.0': 'setParamsHandler',
    'graphql@14.7.0': 'no Lexer class',
  },
};
