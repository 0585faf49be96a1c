'use strict';

// The labels the HTTP integrations' suites publish (test/versions/suites.js:
// `published`): what must never be wrong where an integration is left
// unpatched.
const HTTP = ['method', 'route', 'tenant'];

module.exports = { HTTP };
