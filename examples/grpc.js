'use strict';

// A gRPC server and its client (@grpc/grpc-js, proto-loader) labelled by
// customlabels/grpc, in one process: every call runs under rpc.service
// (shop.v1.Catalog) and rpc.method (GetItem, a unary call that costs 2 ms
// of CPU; WatchStock, a server stream that costs 1 ms per message), plus
// the tenant the client forwards from the scope that made the call. It runs
// for --seconds (default 30) and prints its pid, so you can watch it from
// outside:
//
//   node examples/grpc.js &
//   npm run reader -- sample <pid> --duration 5s --by rpc.method
//
// Requires @grpc/grpc-js and @grpc/proto-loader.

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const { withLabels } = require('customlabels');
const { instrument } = require('customlabels/grpc');

const { burn, secondsArg } = require('./load');

// Before any server or client is made: servers label their calls, clients
// forward the labels current where a call is made.
instrument(grpc, { forward: true });

const seconds = secondsArg();
const { shop } = grpc.loadPackageDefinition(loader.loadSync(path.join(__dirname, 'grpc', 'shop.proto')));

const catalog = {
  async GetItem(call, callback) {
    await new Promise((r) => setTimeout(r, 1)); // labels hold across awaits
    burn(2); // CPU attributed to rpc.method=GetItem and the caller's tenant
    callback(null, { sku: call.request.sku, stock: 7 });
  },
  async WatchStock(call) {
    for (let stock = 3; stock > 0; stock--) {
      burn(1);
      call.write({ sku: call.request.sku, stock });
      await new Promise((r) => setImmediate(r));
    }
    call.end();
  },
};

// The client: `concurrency` calls in flight, tenants in turn, each made from
// a labelled scope (a request's, in a real service).
function steadyCalls(client, stopAt, done, concurrency = 4) {
  const tenants = ['acme', 'globex', 'initech'];
  let n = 0;
  let running = concurrency;
  const loop = () => {
    if (Date.now() > stopAt) {
      if (--running === 0) done();
      return;
    }
    const i = n++;
    withLabels({ tenant: tenants[i % 3] }, () => {
      if (i % 3 === 0) {
        client.WatchStock({ sku: `sku-${i}` }).on('data', () => {}).on('end', loop).on('error', loop);
      } else {
        client.GetItem({ sku: `sku-${i}` }, loop);
      }
    });
  };
  for (let k = 0; k < concurrency; k++) loop();
}

const server = new grpc.Server();
server.addService(shop.v1.Catalog.service, catalog);
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  console.log(`pid ${process.pid}: serving gRPC on 127.0.0.1:${port} for ${seconds} s`);
  const client = new shop.v1.Catalog(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  steadyCalls(client, Date.now() + seconds * 1000, () => {
    client.close();
    server.tryShutdown(() => {});
  });
});
