'use strict';

// Koa and its routers in test/versions (test/versions/suites.js says what a
// suite holds).

const semver = require('semver');
const e2e = require('../../js/integrations/e2e/koa');
const { HTTP } = require('./labels');

const koaSet = (koa, router, version) => ({ set: { packages: { koa, [router]: version } }, variant: router });

module.exports = {
  ...e2e,
  published: HTTP,
  run: (entry, env) => e2e.run({ koa: 'koa', router: entry.variant, env }),
  builders: {
    koa: (v) => koaSet(v, '@koa/router', semver.major(v) === 2 ? '12.0.2' : '15.7.0'),
    '@koa/router': (v) => koaSet(semver.gte(v, '13.0.0') ? '3.3.0' : '2.16.4', '@koa/router', v),
    'koa-router': (v) => koaSet(semver.gte(v, '13.0.0') ? '3.3.0' : '2.16.4', 'koa-router', v),
  },
  hand: (entry) => [
    entry('koa', '2.0.0', 'oldest Koa 2 (callback() inline, no handleRequest), with the oldest @koa/router 12', { packages: { '@koa/router': '12.0.0' } }),
    entry('@koa/router', '13.0.1', '@koa/router 13.0.1: path-to-regexp 8'),
    entry('@koa/router', '15.1.0', '@koa/router 15.1: the class again; param middleware pushed when not inserted'),
  ],
  notes: {
    '@koa/router@11.0.2': 'no Router#register as 12 has it',
    '@koa/router@13.0.0': 'ES classes',
    '@koa/router@15.0.0': 'TypeScript build, require() gives { Router, default }',
  },
  exempt: {
    'koa@1.7.1': 'Koa 1 runs generator middleware: the fixture (async middleware) cannot run on it, with customlabels or without',
  },
};
