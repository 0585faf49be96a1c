'use strict';

// customlabels/grpc with a real @grpc/grpc-js server and client on
// 127.0.0.1 (test/js/fixtures/grpc-app.js), read from outside: every call
// of each kind runs, from its handler to its last write and in its stream
// events, under rpc.service and rpc.method (plus, wired by hand, the
// client's forwarded tenant and the server's own region), and the client's
// callbacks and stream events under their caller's labels, several calls at
// once on one connection. By hand, with customlabels/register, and by
// hand next to OpenTelemetry's grpc instrumentation (whose spans must be
// made as without us).

const path = require('node:path');
const { REGISTERED } = require('./harness');
const e2e = require('./e2e/grpc');

const WIRINGS = {
  'by hand': {},
  'with customlabels/register': { ...REGISTERED, CUSTOMLABELS_LABELS: 'service=shop,version=1.4.2' },
  // The app calls instrument() with its options while register is loaded:
  // its options take over (forwarding, its own labels).
  'by hand under customlabels/register': { ...REGISTERED, CUSTOMLABELS_FIXTURE_WIRING: 'both' },
  'by hand, next to @opentelemetry/instrumentation-grpc': { CUSTOMLABELS_FIXTURE_OTEL: '1' },
};

describe.each(Object.keys(WIRINGS))('gRPC, wired %s', (wiring) => {
  let result;
  beforeAll(async () => {
    result = await e2e.run({ env: WIRINGS[wiring] });
  }, 120000);

  if (wiring.includes('instrumentation-grpc')) {
    test("OpenTelemetry's grpc instrumentation still makes a server and a client span of every call, with its rpc.service and rpc.method", () => {
      const [{ spans }] = result.events.filter((e) => e.event === 'spans');
      const SERVER = 1;
      const CLIENT = 2;
      const count = (kind) => {
        const out = {};
        for (const sp of spans.filter((x) => x.kind === kind)) out[`${sp.service}/${sp.method}`] = (out[`${sp.service}/${sp.method}`] ?? 0) + 1;
        return out;
      };
      const served = { 'demo.v1.Greeter/SayHello': 3, 'demo.v1.Greeter/ListHellos': 3, 'demo.v1.Greeter/CollectHellos': 3, 'demo.v1.Greeter/ChatHellos': 3, 'demo.v1.Legacy/Echo': 3 };
      expect(count(SERVER)).toEqual(expect.objectContaining(served));
      expect(count(CLIENT)).toEqual(expect.objectContaining({ ...served, 'demo.v1.Greeter/NotYet': 3 }));
    });
  }

  test(`${wiring}: every call completed (the unimplemented one as UNIMPLEMENTED), and the process exited cleanly`, () => {
    expect(result.run.stderr).toBe('');
    expect(result.run.code).toBe(0);
    e2e.served(result);
  });

  test(`${wiring}: at every checkpoint of server handlers, stream events and client callbacks the reader sees exactly the call's labels`, () => {
    e2e.checkpoints(result);
  });
});

// In process: what runs for a method the service declares and the
// implementation lacks (grpc-js's own handler) runs under
// rpc.method=(unimplemented); bad options are TypeErrors.
describe('in process', () => {
  const grpc = require('@grpc/grpc-js');
  const loader = require('@grpc/proto-loader');
  const { currentLabels } = require('../../..');
  const { instrument, forwardingInterceptor } = require('../../../lib/integrations/grpc');

  test("an unimplemented method is answered by grpc-js under (unimplemented); a client's forwarded labels go under the server's, within the readers' limits", () => {
    instrument(grpc);
    const pkg = grpc.loadPackageDefinition(loader.loadSync(path.join(__dirname, '..', 'fixtures', 'grpc', 'demo.proto')));
    const server = new grpc.Server();
    server.addService(pkg.demo.v1.Greeter.service, { SayHello: (call, cb) => cb(null, { message: JSON.stringify(currentLabels()) }) });
    const handlers = server.handlers;
    let seen;
    const metadata = new grpc.Metadata();
    handlers.get('/demo.v1.Greeter/NotYet').func({ metadata, request: {}, emit() {}, listenerCount: () => 0 }, () => {
      seen = currentLabels();
    });
    expect(seen).toEqual({ 'rpc.service': 'demo.v1.Greeter', 'rpc.method': '(unimplemented)' });
    metadata.set('customlabels-bin', Buffer.from(JSON.stringify({ tenant: 'acme', 'rpc.method': 'Spoofed', trace_id: 'x', ['k'.repeat(40)]: 'long key' })));
    handlers.get('/demo.v1.Greeter/SayHello').func({ metadata, request: {}, emit() {}, listenerCount: () => 0 }, (err, reply) => {
      seen = JSON.parse(reply.message);
    });
    // The client's labels under the server's (rpc.* not overridden, no
    // trace ids: the server's span has its own), a key over 25 bytes left
    // out.
    expect(seen).toEqual({ tenant: 'acme', 'rpc.service': 'demo.v1.Greeter', 'rpc.method': 'SayHello' });
  });

  test("forwarding sends each call's own labels, and leaves the app's Metadata object as it was", async () => {
    const { withLabels } = require('../../..');
    instrument(grpc);
    const pkg = grpc.loadPackageDefinition(loader.loadSync(path.join(__dirname, '..', 'fixtures', 'grpc', 'demo.proto')));
    const server = new grpc.Server();
    server.addService(pkg.demo.v1.Greeter.service, { SayHello: (call, cb) => cb(null, { message: String(currentLabels().tenant) }) });
    const port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    const client = new pkg.demo.v1.Greeter(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { interceptors: [forwardingInterceptor(grpc)] });
    const shared = new grpc.Metadata();
    shared.set('x-auth', 'token');
    const call = (tenant) => withLabels({ tenant }, () => new Promise((resolve, reject) => client.SayHello({ name: tenant }, shared, (e, r) => (e ? reject(e) : resolve(r.message)))));
    try {
      expect(await call('acme')).toBe('acme');
      expect(await call('globex')).toBe('globex');
      expect(shared.getMap()).toEqual({ 'x-auth': 'token' });
    } finally {
      client.close();
      server.forceShutdown();
    }
  });

  test("a client stream's write callbacks run under the labels of the call that wrote, also those queued while a new channel connects", async () => {
    const { withLabels } = require('../../..');
    instrument(grpc); // (once per grpc-js copy; the first test's may have done it)
    const pkg = grpc.loadPackageDefinition(loader.loadSync(path.join(__dirname, '..', 'fixtures', 'grpc', 'demo.proto')));
    const server = new grpc.Server();
    server.addService(pkg.demo.v1.Greeter.service, {
      CollectHellos: (call, cb) => {
        call.on('data', () => {});
        call.on('end', () => cb(null, { message: 'done' }));
      },
    });
    const port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    const client = new pkg.demo.v1.Greeter(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const seen = [];
    try {
      await Promise.all(
        ['acme', 'globex'].map((tenant) =>
          withLabels({ tenant }, () =>
            new Promise((resolve, reject) => {
              const stream = client.CollectHellos((e) => (e ? reject(e) : resolve()));
              stream.write({ name: '1' }, () => seen.push([tenant, currentLabels().tenant]));
              setTimeout(() => {
                stream.write({ name: '2' }, () => seen.push([tenant, currentLabels().tenant]));
                stream.end();
              }, 20);
            }),
          ),
        ),
      );
    } finally {
      client.close();
      server.forceShutdown();
    }
    expect(seen).toHaveLength(4);
    for (const [caller, labelled] of seen) expect(labelled).toBe(caller);
  });

  test('bad arguments are TypeErrors with a stable code', () => {
    const codes = [];
    for (const bad of [() => instrument({}), () => instrument(grpc, { forward: 'yes' }), () => instrument(grpc, { labels: 7 }), () => forwardingInterceptor({}), () => forwardingInterceptor()]) {
      try {
        bad();
      } catch (e) {
        codes.push(`${e.name} ${e.code}`);
      }
    }
    expect(codes).toEqual(Array(5).fill('TypeError ERR_CUSTOMLABELS_INVALID_OPTION'));
  });
});
