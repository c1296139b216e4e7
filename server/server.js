#!/usr/bin/env node
// The bundled CouchDB-protocol server of scenariogen: express-pouchdb over LevelDB.
//
// Usage: node server.js --port 5984 --host 127.0.0.1 --data-dir DIR --auth-file FILE
//                       [--warm-page N]
//
// Authentication (admin and read-only users, basic auth and cookie sessions, anonymous
// access off, /_config refused) is in auth.js; the auth file is written by
// `scenariogen env up`.
//
// Replies of `GET /{db}/_all_docs` and `POST /{db}/_find` are kept in memory while their database is unchanged
// (readcache.js, mounted after authentication); with `--warm-page N` the server reads
// every database's `_all_docs?include_docs=true` in pages of N after it starts, the way a
// generation run's snapshot reads it (`env up` passes the snapshot's page size).
//
// Middleware here smooths two protocol deviations of express-pouchdb (JSON
// replies need an Accept header; _bulk_docs results may come back out of
// request order), but the Python client never relies on either fix, so it
// runs unchanged against Apache CouchDB.
//
// Errors are answered as JSON and logged as one line, without stack or absolute path
// (errors.js).
'use strict';

const fs = require('fs');
const path = require('path');
const express = require('express');
const { loadAuth, makeAuth } = require('./auth');
const { makeReadCache } = require('./readcache');
const errors = require('./errors');

errors.quietConsole();
const PouchDB = require('pouchdb-core')
  .plugin(require('pouchdb-adapter-leveldb'))
  .plugin(require('pouchdb-adapter-http'))
  .plugin(require('pouchdb-mapreduce'))
  .plugin(require('pouchdb-find'))
  .plugin(require('pouchdb-replication'));

function parseArgs(argv) {
  const opts = { port: 5984, host: '127.0.0.1', dataDir: path.resolve('.scenariogen/couch'), authFile: null, warmPage: 0 };
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i];
    const value = argv[i + 1];
    if (key === '--port') { opts.port = Number(value); i += 1; }
    else if (key === '--host') { opts.host = value; i += 1; }
    else if (key === '--data-dir') { opts.dataDir = path.resolve(value); i += 1; }
    else if (key === '--auth-file') { opts.authFile = path.resolve(value); i += 1; }
    else if (key === '--warm-page') { opts.warmPage = Number(value); i += 1; }
    else { console.error(`unknown argument ${key}; valid: --port, --host, --data-dir, --auth-file, --warm-page`); process.exit(2); }
  }
  if (!Number.isInteger(opts.port) || opts.port <= 0 || opts.port > 65535) {
    console.error(`invalid --port ${opts.port}; use an integer in 1..65535`);
    process.exit(2);
  }
  if (!Number.isInteger(opts.warmPage) || opts.warmPage < 0) {
    console.error(`invalid --warm-page ${opts.warmPage}; use 0 (no warming) or a page size such as 5000`);
    process.exit(2);
  }
  if (!opts.authFile) {
    console.error('missing --auth-file; start the server with `scenariogen env up`, which writes it');
    process.exit(2);
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
let auth;
try {
  auth = makeAuth(loadAuth(opts.authFile));
} catch (err) {
  console.error(`cannot read the auth file given with --auth-file: ${errors.describe(err)}`);
  process.exit(2);
}
fs.mkdirSync(opts.dataDir, { recursive: true });
const LocalPouch = PouchDB.defaults({ prefix: opts.dataDir + path.sep, adapter: 'leveldb' });

const readCache = makeReadCache(LocalPouch);

const app = express();
app.disable('x-powered-by');
app.use((req, _res, next) => {
  // express-pouchdb answers text/plain unless JSON is asked for.
  req.headers.accept = 'application/json';
  next();
});
app.use(errors.scrubErrorReplies);
app.use(auth.session);
app.use(auth.guard);
app.use((req, res, next) => {
  // Return _bulk_docs results in request order (the LevelDB adapter may not).
  if (req.method !== 'POST' || !/\/_bulk_docs$/.test(req.path)) { next(); return; }
  const originalSend = res.send.bind(res);
  res.send = (body) => {
    try {
      const ids = (req.body && Array.isArray(req.body.docs)) ? req.body.docs.map((d) => d && d._id) : null;
      const parsed = typeof body === 'string' ? JSON.parse(body) : (Buffer.isBuffer(body) ? JSON.parse(body.toString()) : body);
      if (ids && Array.isArray(parsed) && ids.every((id) => typeof id === 'string')) {
        const byId = new Map(parsed.map((r) => [r.id, r]));
        if (byId.size === parsed.length && ids.every((id) => byId.has(id))) {
          return originalSend(JSON.stringify(ids.map((id) => byId.get(id))));
        }
      }
    } catch (err) {
      // Leave the reply untouched: the client pairs results by id anyway.
    }
    return originalSend(body);
  };
  next();
});
app.use(express.json({ limit: '256mb' }));
// After the guard (only authorised requests reach the cache) and after express.json (a
// `_find` body is read here; express-pouchdb's own parser then skips it).
app.use(readCache.middleware);
app.use('/', require('express-pouchdb')(LocalPouch, {
  configPath: path.join(opts.dataDir, 'config.json'),
  logPath: path.join(opts.dataDir, 'log.txt'),
  mode: 'fullCouchDB',
  // Off: the parts that rewrite the URL after the guard has checked its database name
  // (dbname.js); _rewrite even takes the database from anywhere in the URL.
  overrideMode: { exclude: ['routes/fauxton', 'routes/vhosts', 'routes/rewrite', 'routes/cluster-rewrite'] },
}));
app.use(errors.errorHandler);

const server = app.listen(opts.port, opts.host, () => {
  console.log(`scenariogen-couch listening on http://${opts.host}:${opts.port} pid=${process.pid}`);
  if (opts.warmPage > 0) {
    const started = Date.now();
    readCache.warm(opts.warmPage).then(() => {
      const { entries, bytes } = readCache.size();
      console.log(`read cache warmed: ${entries} replies, ${(bytes / 1e6).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }, (err) => console.error(`read cache warming stopped: ${errors.describe(err)}`));
  }
});
server.on('error', (err) => {
  if (err.code === 'EADDRINUSE') {
    console.error(`port ${opts.port} on ${opts.host} is already in use`);
  } else {
    console.error(`server error: ${errors.describe(err)}`);
  }
  process.exit(3);
});
function stop() { server.close(() => process.exit(0)); setTimeout(() => process.exit(0), 2000).unref(); }
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
