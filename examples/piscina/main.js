'use strict';

// Tasks handed to a Piscina pool run under the labels of the request that
// sent them, so the CPU a worker spends resizing is attributed to the tenant
// and route that asked for it:
//
//   node examples/piscina/main.js &
//   npx customlabels sample <pid> --duration 5s --by tenant   # worker threads included
//
// Requires piscina (npm install piscina).

const path = require('node:path');
const { Piscina } = require('piscina');
const { withLabels } = require('customlabels');
const { run } = require('customlabels/worker');

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 30;
const pool = new Piscina({ filename: path.join(__dirname, 'worker.js'), maxThreads: 2 });
const tenants = { acme: 1, globex: 2, initech: 3 }; // ms of CPU per task

console.log(`pid ${process.pid}: sending tasks for ${seconds} s`);
const stopAt = Date.now() + seconds * 1000;
async function client(tenant) {
  while (Date.now() < stopAt) {
    await withLabels({ route: '/thumbnails', tenant }, () => run(pool, { ms: tenants[tenant] }));
  }
}
Promise.all(Object.keys(tenants).map(client)).then(() => pool.destroy());
