'use strict';

// What test/versions runs of each integration, one suite per integration in
// test/versions/suites/<name>.js (its tests: adding an integration adds its
// suite there, nothing here): how its end-to-end test's fixture
// (test/js/integrations/e2e/) starts against one entry of the matrix (the
// variant the entry names, with the entry's packages in place of the
// repository's), which wirings it runs, and how the matrix makes its
// entries (test/versions/matrix.js).
//
// Each: { run(entry, env, context) -> result, served(result, entry,
// context), checkpoints(result, entry, context), wirings? (default: by hand
// and register), warnings?(result) (the fixture's own record of them, where
// it keeps stderr for what should not be there), published: the labels the
// integration publishes (by hand, from its options; with register, from its
// configuration), which must never be wrong where it is left unpatched }
// (labels the app sets itself are the app's: a framework left unpatched may
// run them in another request's context, as it does without customlabels);
// context: { wiring, unsupported } and the servers the suite needs, started
// by describe-versions.js (servers: ['redis'] gives context.redis, ['broker']
// context.broker); report? (packages of the set's install beside its own
// whose versions the docs show: Express's router); outcome?(entry, { wiring,
// hooks }) (what its tests showed, in the docs' words, where it is not
// 'labelled exactly' or the unsupported one); expectedLabels?(checkpoint)
// (the labels a checkpoint expects, where its `expect` is not just them).
//
// And for the matrix: builders: { package: (version) -> { set: { packages,
// overrides?, legacyPeerDeps? }, variant?, node?, wirings? } } (how a
// release of each package of its table entry runs: the packages beside it);
// hand?(entry, { unsupported }) -> [entries] (releases chosen by hand:
// entry(package, version, why, extra?)); notes? { 'package@version': what a
// generated entry's release changed }; exempt? { 'package@version': why
// the coverage's release cannot run }.

const TABLE = require('../../lib/integrations');

// An integration has a suite where it has ranges to test.
const tested = TABLE.filter((i) => Object.keys(i.packages).length + Object.keys(i.testedWith).length > 0);
const SUITES = Object.fromEntries(tested.map((i) => [i.name, require(`./suites/${i.name}`)]));

module.exports = { SUITES };
