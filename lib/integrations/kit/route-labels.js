'use strict';

// The route labels of the HTTP integrations: one frozen { route } object per
// template (kit/cache.js), so that withLabels finds the set it built the
// first time by identity instead of reading and encoding labels per
// request. Templates come from the app's routes, so a cache holds a few
// entries; its bound guards against an app that makes routes at run time.

const { BoundedCache } = require('./cache');

class RouteLabels {
  constructor(max = 256) {
    this.cache = new BoundedCache(max);
  }

  // The frozen { route: template }.
  of(template) {
    return this.cache.get(template, (t) => Object.freeze({ route: t }));
  }
}

module.exports = { RouteLabels };
