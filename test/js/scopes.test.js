'use strict';

// The contract of lib/core/scopes.js, the scopes the integrations enter
// where no function wraps the work that follows (a request Node.js
// announces, a route found in the middle of one): what each entry point
// makes current, for which code, and what it leaves to the code around it.
// Read back with currentLabels() (the set published for readers) in the
// execution itself and in continuations made from it, hooks on and off.

const { runNode } = require('./helpers');

const SCRIPT = `
  const { withLabels, currentLabels } = require('.');
  const { scopes } = require('./lib/core');
  const out = {};
  const tick = () => new Promise((r) => setImmediate(r));
  (async () => {
    await withLabels({ outer: '1' }, async () => {
      // enterLabels: over the current set, for the rest of this execution
      // and what it causes; it returns the set, which runIn runs code in.
      const set = scopes.enterLabels({ route: '/a' });
      out.entered = currentLabels();
      const timer = new Promise((r) => setTimeout(() => r(currentLabels()), 1));
      out.timer = await timer;
      out.runIn = await new Promise((resolve) => setImmediate(() => withLabels({ other: 'x' }, () => scopes.runIn(set, () => resolve(currentLabels())))));
      out.current = scopes.current() === set;
    });
    await tick();
    out.after = currentLabels();
    await withLabels({ outer: '2' }, async () => {
      // enterOwn: its labels alone, whatever was current.
      scopes.enterOwn({ method: 'GET' });
      out.own = currentLabels();
      await tick();
      out.ownLater = currentLabels();
    });
    await withLabels({ outer: '3' }, () => {
      // enterUntil: over the current set, until its restore runs.
      const restore = scopes.enterUntil({ route: '/b' });
      out.until = currentLabels();
      restore();
      out.restored = currentLabels();
    });
    // Bad labels throw as withLabels does, and change nothing.
    await withLabels({ outer: '4' }, () => {
      try {
        scopes.enterLabels({ bad: {} });
      } catch (err) {
        out.error = err.code;
      }
      out.unchanged = currentLabels();
    });
    out.onFrames = scopes.onFrames();
    console.log(JSON.stringify(out));
  })();`;

test.each([
  ['on', {}],
  ['off', { CUSTOMLABELS_HOOKS: '0' }],
])('scopes, hooks %s: enterLabels holds for the rest of the execution and its continuations; enterOwn starts afresh; enterUntil ends when told; bad labels change nothing', async (hooks, env) => {
  const r = await runNode(SCRIPT, { env });
  expect(r.stderr).toBe('');
  const out = JSON.parse(r.stdout);
  const frames = out.onFrames;
  expect(typeof frames).toBe('boolean');
  expect(out).toEqual({
    entered: { outer: '1', route: '/a' },
    timer: { outer: '1', route: '/a' },
    runIn: { outer: '1', route: '/a' },
    current: true,
    after: {},
    own: { method: 'GET' },
    ownLater: { method: 'GET' },
    until: { outer: '3', route: '/b' },
    restored: { outer: '3' },
    error: 'ERR_CUSTOMLABELS_INVALID_VALUE',
    unchanged: { outer: '4' },
    onFrames: frames,
  });
  // (On 24 and 26 AsyncLocalStorage runs on AsyncContextFrame by default.)
  if (Number(process.versions.node.split('.')[0]) >= 24) expect(frames).toBe(true);
});
