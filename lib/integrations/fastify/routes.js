'use strict';

// The route labels Fastify requests take on top of the HTTP integration's
// scope (kit/request-scope.js): the route alone, one frozen object per
// template (kit/route-labels.js), UNMATCHED for a request no route matched.

const { RouteLabels } = require('../kit/route-labels');
const { UNMATCHED } = require('../kit/request-labels');

const routes = new RouteLabels();

// A build (kit/request-labels.js's shape) that gives the route alone.
const routeOnly = (method, route) => routes.of(route === undefined ? UNMATCHED : route);

module.exports = { routeOnly, routes };
