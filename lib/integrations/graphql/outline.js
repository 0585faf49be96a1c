'use strict';

// Which operation a GraphQL request runs, read before the server parses it:
// the outline of the document (the operations it defines, in order), read
// with graphql-js's own Lexer and cached by the query text, and the one
// that runs chosen as graphql-js's getOperationAST chooses it. Also the
// operations of parsed documents and of persisted queries (a hash without
// text).
//
// Why graphql-js's Lexer and not a parse: the outline needs the tokens at
// the top level only (a definition's keyword, an operation's name, the
// brackets around everything else), and the server parses the document
// anyway, inside the scope. The Lexer is the one every Apollo and Yoga app
// already has; it knows strings, block strings, comments and every token
// rule as the parser does. Measured (bench/graphql-outline.js, Node 24):
// reading a text's outline the first time costs 0.4-0.6x graphql-js's
// parse of the same text (0.9 against 2.0 us for a one-line query, 4.0
// against 10.0 us with a fragment); each distinct text is read once
// (MAX_DOCUMENTS below), and a text seen before costs one Map lookup
// (about 10 ns). The hand-written scanner this replaced was 2-3x faster on
// a first read, which the cache makes irrelevant to a server's steady state.

const path = require('node:path');
const { createRequire } = require('node:module');
const { warnOnce } = require('../../core/warnings');
const errors = require('../../core/errors');
const { PARCA } = require('../kit/limits');
const { versionOfFile } = require('../kit/versions');
const { BoundedCache } = require('../kit/cache');
const { capValue } = require('../kit/cardinality');

const ANONYMOUS = '(anonymous)';
const UNKNOWN = '(unknown)';
const PERSISTED = '(persisted)';
const BATCH = '(batch)';
const MIXED = '(mixed)';
const { MAX_VALUE_BYTES } = PARCA;
// Distinct query texts whose outline is kept; the cache starts over when
// full (apps send a fixed set of documents; the bound guards against
// clients that send a new one every time).
const MAX_DOCUMENTS = 1024;
// Operations (name, type) interned.
const MAX_OPERATIONS = 4096;
// Query texts longer than this are not kept in the cache (UTF-16 units).
const MAX_CACHED_TEXT = 16384;

// An operation as labels name it: { operation, type } (frozen, interned, so
// plugins can key their label objects by it).
// (Names come from clients: the cache is bounded; the edge operations below
// are constants and need no entry.)
const operations = new BoundedCache(MAX_OPERATIONS);
const operationOfKind = (name, type) => operations.get(`${type} ${name}`, () => Object.freeze({ operation: name, type }));
const UNKNOWN_OP = Object.freeze({ operation: UNKNOWN, type: UNKNOWN });
const PERSISTED_OP = Object.freeze({ operation: PERSISTED, type: UNKNOWN });

// An operation name as its label holds it: cut, and capped (a client
// chooses it: kit/cardinality.js).
const labelName = (name) => (name === null ? ANONYMOUS : capValue('graphql.operation', name.length > MAX_VALUE_BYTES ? name.slice(0, MAX_VALUE_BYTES) : name));

// graphql-js, as the app has it: resolved from here, else from the app's
// directory (a layout where this package cannot see the app's packages),
// with its version ({ version, Lexer: null } where that version has no
// Lexer class to read with: graphql 14); null, with one warning, where there
// is none. canRead() says whether operations can be read with it: where they
// cannot (none, or a version outside the range the integration supports,
// one warning), operations run with no GraphQL labels of their own
// (graphql/labeller.js), as an integration left alone does.
let graphqlJs;
function findGraphqlJs() {
  if (graphqlJs !== undefined) return graphqlJs;
  graphqlJs = null;
  const from = [require, createRequire(path.join(process.cwd(), 'index.js'))];
  for (const req of from) {
    let file;
    try {
      file = req.resolve('graphql');
    } catch {
      continue;
    }
    const version = versionOfFile(file, 'graphql');
    try {
      const { Lexer, Source, TokenKind } = req('graphql');
      const readable = typeof Lexer === 'function' && typeof Source === 'function' && typeof TokenKind === 'object';
      graphqlJs = readable ? { Lexer, Source, TokenKind, version } : { Lexer: null, version };
      return graphqlJs;
    } catch {
      // next
    }
  }
  warnOnce('graphql-lexer', "customlabels: graphql-js (the 'graphql' package) was not found: GraphQL operations run with no GraphQL labels", 'CUSTOMLABELS_GRAPHQL_LABELS');
  return graphqlJs;
}
// graphql-js, where it can read operations; else null. (Its version is
// canRead()'s to check.)
const lexerOf = () => {
  const js = findGraphqlJs();
  return js !== null && js.Lexer !== null ? js : null;
};

// Whether operations can be read here: graphql-js found, at a version
// `integration` (customlabels/graphql's descriptor) supports (one warning
// if not), with its Lexer.
function canRead(integration) {
  const js = findGraphqlJs();
  if (js === null || !integration.supports('graphql', js.version)) return false;
  if (js.Lexer !== null) return true;
  warnOnce('graphql-lexer', `customlabels: graphql-js ${js.version ?? ''} has no Lexer to read operations with: GraphQL operations run with no GraphQL labels`, 'CUSTOMLABELS_GRAPHQL_LABELS');
  return false;
}

// States between top-level tokens.
const TOP = 0; // between definitions
const OPERATION_NAME = 1; // after query/mutation/subscription: a name may follow
const HEADER = 2; // in an operation's or fragment's header, before its '{'

// The operations a document defines, in order, as [{ name (null when
// unnamed), type }], or null when its outline cannot be read: a token
// graphql-js's Lexer rejects, unbalanced brackets, a type-system definition
// (never executable), or no definition at all. Reads only the names at the
// top level (a definition's keyword and an operation's name); anything else
// a parser would check (selections, arguments, directives) is left to the
// parser.
function scanOperations(text) {
  const js = lexerOf();
  if (js === null) return null;
  const { Lexer, Source, TokenKind: K } = js;
  const ops = [];
  let depth = 0;
  let state = TOP;
  let current = null;
  let definitions = 0;
  try {
    const lexer = new Lexer(new Source(text));
    for (let token = lexer.advance(); token.kind !== K.EOF; token = lexer.advance()) {
      const kind = token.kind;
      if (kind === K.BRACE_L || kind === K.PAREN_L || kind === K.BRACKET_L) {
        if (depth === 0) {
          if (kind === K.BRACE_L) {
            if (state === TOP) {
              definitions++;
              ops.push({ name: null, type: 'query' }); // the { ... } shorthand
            }
            state = TOP; // back at the top once this selection set closes
          } else if (state === TOP) {
            return null;
          } else {
            state = HEADER; // variable definitions or arguments
          }
        }
        depth++;
      } else if (kind === K.BRACE_R || kind === K.PAREN_R || kind === K.BRACKET_R) {
        // (The parser matches the kinds; a mismatch fails its parse.)
        if (depth === 0) return null;
        depth--;
      } else if (depth !== 0) {
        // inside brackets: left to the parser
      } else if (kind === K.NAME) {
        if (state === TOP) {
          const word = token.value;
          definitions++;
          if (word === 'query' || word === 'mutation' || word === 'subscription') {
            current = { name: null, type: word };
            ops.push(current);
            state = OPERATION_NAME;
          } else if (word === 'fragment') {
            state = HEADER;
          } else {
            return null; // a type-system definition (never executable) or garbage
          }
        } else if (state === OPERATION_NAME) {
          current.name = token.value;
          state = HEADER;
        }
        // HEADER: a directive's name, `on` and a type condition.
      } else if (kind === K.STRING || kind === K.BLOCK_STRING) {
        // At the top level only a definition's description (graphql >=
        // 16.11 allows them on operations and fragments).
        if (state !== TOP) return null;
      } else if (state === TOP) {
        return null; // punctuation between definitions
      } else if (state === OPERATION_NAME) {
        state = HEADER; // query @directive {
      }
    }
  } catch {
    return null; // the Lexer's GraphQLError: a token GraphQL does not allow
  }
  if (depth !== 0 || state !== TOP || definitions === 0) return null;
  return ops;
}

// The outline of one document, and the operation each operationName selects.
class Outline {
  constructor(ops) {
    // null: unreadable; else [{ name, op }], op the interned operation.
    this.ops = ops === null ? null : ops.map((o) => ({ name: o.name, op: operationOfKind(labelName(o.name), o.type) }));
    this.single = this.ops !== null && this.ops.length === 1 ? this.ops[0].op : UNKNOWN_OP;
  }

  // graphql-js's getOperationAST: without a name, the only operation; with
  // one, the first operation of that name.
  select(operationName) {
    if (operationName === undefined || operationName === null) return this.single;
    if (typeof operationName !== 'string' || this.ops === null) return UNKNOWN_OP;
    for (const o of this.ops) if (o.name === operationName) return o.op;
    return UNKNOWN_OP;
  }
}

const outlines = new BoundedCache(MAX_DOCUMENTS); // query text -> Outline
function outlineOf(text) {
  // Big documents are read each time rather than kept: clients choose the
  // texts (a server may accept megabytes).
  if (text.length > MAX_CACHED_TEXT) return new Outline(scanOperations(text));
  return outlines.get(text, () => new Outline(scanOperations(text)));
}

const documentOutlines = new WeakMap(); // DocumentNode -> Outline
function outlineOfDocument(document) {
  let outline = documentOutlines.get(document);
  if (outline === undefined) {
    let ops = [];
    const definitions = document.definitions;
    if (!Array.isArray(definitions)) {
      ops = null;
    } else {
      for (const d of definitions) {
        if (d.kind === 'OperationDefinition') {
          ops.push({ name: d.name ? d.name.value : null, type: d.operation });
        } else if (d.kind !== 'FragmentDefinition') {
          ops = null;
          break;
        }
      }
    }
    outline = new Outline(ops);
    documentOutlines.set(document, outline);
  }
  return outline;
}

// The operation of a query (text, or a parsed DocumentNode) and
// operationName.
function operationFor(query, operationName) {
  if (typeof query === 'string') return outlineOf(query).select(operationName);
  if (typeof query === 'object' && query !== null && query.kind === 'Document') return outlineOfDocument(query).select(operationName);
  return UNKNOWN_OP;
}

// Public: { name, type } of the operation a document and operationName
// select, as the labels name it, or null when none is selected, or where
// `integration` (customlabels/graphql's descriptor) cannot read operations
// with the graphql-js found (canRead(): one warning).
function operationOf(integration, query, operationName) {
  if (typeof query !== 'string' && (typeof query !== 'object' || query === null)) {
    throw errors.invalidOption('', 'a GraphQL document (a string or a DocumentNode)', query);
  }
  if (typeof query === 'string' && !canRead(integration)) return null;
  const op = operationFor(query, operationName);
  if (op === UNKNOWN_OP) return null;
  return { name: op.operation, type: op.type };
}

// --- persisted queries ---------------------------------------------------

// sha256 hash -> Outline of the text Apollo verified or found for it.
const persisted = new BoundedCache(MAX_DOCUMENTS);
function rememberPersisted(hash, text) {
  if (typeof hash !== 'string' || typeof text !== 'string' || persisted.peek(hash) !== undefined) return;
  persisted.set(hash, outlineOf(text));
}

function persistedHash(extensions) {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const pq = extensions.persistedQuery;
  return typeof pq === 'object' && pq !== null && typeof pq.sha256Hash === 'string' ? pq.sha256Hash : undefined;
}

// The operation of one GraphQL request's fields (a query that is not text
// is a parsed document only where `documents` allows it: executeOperation).
function operationOfParams(query, operationName, extensions, documents = false) {
  if (typeof query === 'string') return query === '' ? UNKNOWN_OP : outlineOf(query).select(operationName);
  if (query === undefined || query === null) {
    // A hash alone (Apollo looks it up only when there is no query).
    const hash = persistedHash(extensions);
    if (hash === undefined) return UNKNOWN_OP;
    const outline = persisted.peek(hash);
    return outline === undefined ? PERSISTED_OP : outline.select(operationName);
  }
  return documents ? operationFor(query, operationName) : UNKNOWN_OP;
}

// A batch of operations (Apollo's batched HTTP request): (batch) with their
// common type, or (mixed).
function batchOperation(body) {
  let type = null;
  for (const piece of body) {
    const op = typeof piece === 'object' && piece !== null ? operationOfParams(piece.query, piece.operationName, piece.extensions) : UNKNOWN_OP;
    if (type === null) type = op.type;
    else if (type !== op.type) type = MIXED;
  }
  return operationOfKind(BATCH, type === null || type === UNKNOWN ? MIXED : type);
}

// fn()'s operation, or (unknown) if reading it throws.
function safely(get) {
  try {
    return get();
  } catch {
    return UNKNOWN_OP;
  }
}

module.exports = {
  canRead,
  UNKNOWN_OP,
  MAX_OPERATIONS,
  scanOperations,
  operationFor,
  operationOf,
  operationOfParams,
  batchOperation,
  rememberPersisted,
  persistedHash,
  safely,
};
