// Starts Platformatic DB, a Fastify 5 service, from the folder bench/
// services.js prepared (platformatic.json, migrations, an SQLite file), the
// way its runtime starts one application: create(), init(), start().
//   node bench/apps/platformatic-db.mjs <modules folder> <service folder> <port>

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, dir, port] = process.argv.slice(2);
process.env.PLT_BENCH_PORT = port;
const require = createRequire(path.join(modules, 'package.json'));
const { create } = await import(pathToFileURL(require.resolve('@platformatic/db')).href);
const app = await create(dir);
await app.init();
await app.start({ listen: true });
