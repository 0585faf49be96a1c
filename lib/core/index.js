'use strict';

// This thread's customlabels: the instance on the addon this copy loads
// (lib/core/instance.js): { api, traceScopes, scopes, observers }.
const { instanceOf } = require('./instance');
const { loadBinding } = require('./binding');

module.exports = instanceOf(loadBinding());
