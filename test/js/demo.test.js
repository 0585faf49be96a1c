'use strict';

// `npm run demo`, as the README's first line runs it: every request's steps
// carry that request's labels, nothing is labelled outside them, and the
// demo's reader section shows the labels read from outside its own process
// during a request (via `npm run reader`'s script, bin/customlabels.js).

const { execFile } = require('node:child_process');
const path = require('node:path');
const { root } = require('./helpers');

function runDemo() {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'examples', 'demo.js')], { cwd: root, encoding: 'utf8', timeout: 60000 }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr }),
    );
  });
}

describe('npm run demo', () => {
  let out;
  beforeAll(async () => {
    out = await runDemo();
  }, 90000);

  test('runs cleanly and labels every step of each concurrent request with its own route and customer', () => {
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const blocks = out.stdout.split(/\n(?=GET )/).slice(1);
    expect(blocks).toHaveLength(4);
    for (const block of blocks) {
      const [, route, customer] = block.match(/^GET (\S+) for (\S+),/);
      const steps = block.split('\n').slice(1, 5);
      expect(steps).toHaveLength(4);
      for (const step of steps) expect(step).toContain(`route=${route} customer=${customer}`);
      expect(steps[3]).toContain('phase=render');
    }
    expect(out.stdout).toContain('outside any request: (no labels)');
    expect(out.stdout).toContain('after all requests: (no labels)');
  });

  test('shows what the reader sees from outside during a request: the demo thread with that request\'s labels', () => {
    const section = out.stdout.split('what a profiler sees from outside')[1];
    expect(section).toBeDefined();
    const pid = section.match(/process (\d+): \S+customlabels\.node \(ABI v1/);
    expect(pid).not.toBeNull();
    const row = section.split('\n').find((l) => l.trim().startsWith(`${pid[1]} `));
    expect(row).toMatch(/^\s*\d+\s+\S+\s+route=\/checkout customer=acme$/);
  });
});
