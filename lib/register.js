'use strict';

// customlabels/register: `node --require customlabels/register app.js`
// (lib/register/index.js). Loaded twice (CJS and ESM entries, or two copies
// of the package), it starts once.
require('./register/index').start();
