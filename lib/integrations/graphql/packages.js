'use strict';

// What customlabels/graphql supports (its entry in the table of
// integrations, graphql/integration.js, declares these), for the checks of
// the parts that patch (graphql/apollo.js, graphql/envelop.js).
module.exports = Object.freeze({
  name: 'graphql',
  packages: Object.freeze({ '@apollo/server': '4.x || 5.x', 'graphql-yoga': '>=5.11.0 <6', graphql: '15.x || 16.x || 17.x' }),
});
