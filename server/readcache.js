// Read cache of the bundled server: replies of `GET /{db}/_all_docs` and `POST /{db}/_find`
// kept in memory.
//
// PouchDB's LevelDB adapter answers `_all_docs?include_docs=true` with one lookup per
// document (3-9 s for the default fleet), and every generation run reads the whole
// fleet that way once (generator/store/snapshot.py). This module keeps those replies in
// memory, per database and query, and serves them again while the database is unchanged.
// Mango queries (`_find`) get the same treatment: building a fleet profile asks about a
// hundred of them, the same ones every run, each 20-150 ms on PouchDB.
//
// Correctness rests on two guards:
// - Write invalidation (the primary one). This server process owns the LevelDB files, so
//   every change arrives as an HTTP request here. Any request other than GET/HEAD (and
//   the read-only POSTs `_find`, `_all_docs`, `_bulk_get`, `_explain` on a database)
//   drops the entries of its database, or of every database when it is a server-level
//   request (`/_replicate`, `/_restart`, ...), both when it arrives and when it ends;
//   while it runs nothing of that database is served from, or stored in, the cache.
// - update_seq (belt and braces, e.g. for replications run by the server's own
//   daemons): an entry remembers the database's update_seq read before it was computed
//   and is served only while `db.info()` still reports that value. PouchDB's update_seq
//   can repeat after a database is deleted and created again, which is why it is not
//   the only guard.
//
// The middleware is mounted AFTER auth.session and auth.guard: a request that is not
// authenticated or not authorised never reaches it. Entries are keyed by the database name
// the guard checked (dbname.js's requestTarget of the same path); a spelling the storage
// layer would read as another database is refused before it gets here. Only successful
// (200) replies are kept, at most `maxBytes` of them, least recently used first out;
// concurrent misses for the same key share one computation.
//
// For `_all_docs` only the query parameters in CACHED_PARAMS are cached (each at most
// once, values JSON-decoded exactly as express-pouchdb decodes them); for `_find` only a
// JSON object body (parsed by express.json, which must run before this middleware), keyed
// by its exact text. Any other request passes on to express-pouchdb unchanged. A cached
// reply is `JSON.stringify(allDocs(opts)) + "\n"` (or `find(body)`), the body
// express-pouchdb sends for the same options, computed on the same PouchDB object
// express-pouchdb uses (express-pouchdb's own database cache).
'use strict';

const { getOrCreateDB } = require('express-pouchdb/lib/create-or-delete-dbs');
const { DB_NAME, requestTarget } = require('./dbname');

const CACHED_PARAMS = new Set(['limit', 'include_docs', 'startkey', 'endkey', 'skip', 'descending', 'inclusive_end']);
const READ_POSTS = new Set(['_find', '_all_docs', '_bulk_get', '_explain']);
const SERVER = '*'; // invalidation target of server-level requests: every database
const HEADER = 'X-Scenariogen-Read-Cache';

// The options express-pouchdb would pass to allDocs for a query string, or null when the
// query is not one this cache handles.
function parseQuery(rawQuery) {
  const opts = {};
  for (const [key, raw] of new URLSearchParams(rawQuery)) {
    if (!CACHED_PARAMS.has(key) || Object.prototype.hasOwnProperty.call(opts, key)) return null;
    let value = raw;
    try { value = JSON.parse(raw); } catch (err) { /* a plain string, as express-pouchdb keeps it */ }
    opts[key] = value;
  }
  return opts;
}

// One cache key per (database, options), whatever the order of the query parameters.
function cacheKey(db, opts) {
  return `${db}\0_all_docs\0${JSON.stringify(Object.keys(opts).sort().map((k) => [k, opts[k]]))}`;
}

function findKey(db, bodyText) {
  return `${db}\0_find\0${bodyText}`;
}

// The request's segments and database (null for a server-level path), or null for a
// path the guard refuses.
function targetOf(req) {
  try {
    return requestTarget(req.path);
  } catch (err) {
    return null;
  }
}

// The database a request may change: its name, SERVER for a server-level request (or
// one we cannot parse), or null for a read.
function writeTarget(req) {
  if (req.method === 'GET' || req.method === 'HEAD') return null;
  const target = targetOf(req);
  if (!target || target.db === null) return SERVER;
  if (req.method === 'POST' && target.segments.length === 2 && READ_POSTS.has(target.segments[1])) return null;
  return target.db;
}

function makeReadCache(PouchDB, options = {}) {
  const maxBytes = options.maxBytes ?? 512 * 1024 * 1024;
  const entries = new Map(); // key -> {db, seq, body}; Map order = least recently used first
  const pending = new Map(); // key -> {db, promise}
  const writes = new Map(); // db or SERVER -> requests in flight
  let bytes = 0;
  let epoch = 0; // bumped by every invalidation; a computation that saw one is not kept
  const stats = { hits: 0, misses: 0, stored: 0, invalidations: 0 };

  function writing(db) {
    return (writes.get(db) || 0) > 0 || (writes.get(SERVER) || 0) > 0;
  }

  function drop(key) {
    const entry = entries.get(key);
    if (entry) { bytes -= entry.body.length; entries.delete(key); }
  }

  function invalidate(target) {
    epoch += 1;
    stats.invalidations += 1;
    for (const [key, entry] of entries) {
      if (target === SERVER || entry.db === target) drop(key);
    }
    for (const [key, job] of pending) {
      if (target === SERVER || job.db === target) pending.delete(key);
    }
  }

  function store(key, entry) {
    drop(key);
    if (entry.body.length > maxBytes) return;
    entries.set(key, entry);
    bytes += entry.body.length;
    stats.stored += 1;
    for (const old of entries.keys()) {
      if (bytes <= maxBytes) break;
      drop(old);
    }
  }

  async function exists(db) {
    return (await PouchDB.allDbs()).includes(db);
  }

  // The reply for (db, opts), from memory or computed (and kept if nothing wrote to db
  // meanwhile); null when the database does not exist.
  // `find` is the Mango body's text for a `_find`, else null (an `_all_docs` with opts).
  async function reply(db, opts, find = null) {
    const key = find === null ? cacheKey(db, opts) : findKey(db, find);
    const entry = entries.get(key);
    if (entry && !writing(db)) {
      const seenEpoch = epoch;
      const info = await (await getOrCreateDB(PouchDB, db)).info();
      if (info.update_seq === entry.seq && epoch === seenEpoch && entries.get(key) === entry) {
        entries.delete(key);
        entries.set(key, entry); // most recently used
        stats.hits += 1;
        return { body: entry.body, hit: true };
      }
      drop(key);
    }
    let job = pending.get(key);
    if (!job) {
      const promise = (async () => {
        const startEpoch = epoch;
        if (!(await exists(db))) return null;
        // A write that began meanwhile (e.g. the database's deletion): let express-pouchdb
        // answer, so that nothing here opens (and so re-creates) a deleted database.
        if (epoch !== startEpoch || writing(db)) return null;
        const handle = await getOrCreateDB(PouchDB, db);
        const seq = (await handle.info()).update_seq;
        const result = find === null ? await handle.allDocs({ ...opts }) : await handle.find(JSON.parse(find));
        const body = Buffer.from(`${JSON.stringify(result)}\n`, 'utf8');
        if (epoch === startEpoch && !writing(db)) store(key, { db, seq, body });
        return body;
      })();
      job = { db, promise };
      pending.set(key, job);
      const forget = () => { if (pending.get(key) === job) pending.delete(key); };
      promise.then(forget, forget);
    }
    const body = await job.promise;
    if (body === null) return null;
    stats.misses += 1;
    return { body, hit: false };
  }

  // Express middleware: mount after authentication and authorisation.
  function middleware(req, res, next) {
    const target = writeTarget(req);
    if (target !== null) {
      writes.set(target, (writes.get(target) || 0) + 1);
      invalidate(target);
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        writes.set(target, writes.get(target) - 1);
        invalidate(target);
      };
      res.on('finish', finish);
      res.on('close', finish);
      next();
      return;
    }
    const read = targetOf(req);
    const db = read && read.segments.length === 2 ? read.db : null;
    const action = db === null ? null : read.segments[1];
    if (req.method === 'POST' && action === '_find' && req._body === true && req.body
      && typeof req.body === 'object' && !Array.isArray(req.body)) {
      reply(db, null, JSON.stringify(req.body)).then((out) => send(req, res, next, out), () => next());
      return;
    }
    const q = req.originalUrl.indexOf('?');
    const opts = action === '_all_docs' && !req.headers['transfer-encoding'] && !(Number(req.headers['content-length']) > 0)
      ? parseQuery(q < 0 ? '' : req.originalUrl.slice(q + 1)) : null;
    if (!opts) { next(); return; }
    // On a failure here express-pouchdb answers (and reports) the request itself.
    reply(db, opts).then((out) => send(req, res, next, out), () => next());
  }

  function send(req, res, next, out) {
    if (!out) { next(); return; }
    // res.end, not res.send: express would hash the whole body for an ETag each time.
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', out.body.length);
    res.setHeader(HEADER, out.hit ? 'hit' : 'miss');
    res.end(req.method === 'HEAD' ? undefined : out.body);
  }

  // Read every page of `_all_docs?include_docs=true` of each existing database the way
  // generator/store/couch.py pages it (limit=page; then startkey=<last id>, skip=1), so
  // the first snapshot read after a start is served from memory.
  async function warm(page) {
    // express-pouchdb installs PouchDB.allDbs (pouchdb-all-dbs) asynchronously at start.
    for (let i = 0; typeof PouchDB.allDbs !== 'function'; i += 1) {
      if (i >= 600) throw new Error('express-pouchdb did not install PouchDB.allDbs within 30 s');
      await new Promise((resolve) => { setTimeout(resolve, 50); });
    }
    const names = (await PouchDB.allDbs()).filter((n) => DB_NAME.test(n)).sort();
    for (const db of names) {
      let opts = { limit: page, include_docs: true };
      for (;;) {
        const out = await reply(db, opts);
        if (!out) break;
        const rows = JSON.parse(out.body.toString('utf8')).rows;
        if (rows.length < page) break;
        opts = { limit: page, include_docs: true, startkey: rows[rows.length - 1].id, skip: 1 };
      }
    }
  }

  return { middleware, warm, stats, size: () => ({ entries: entries.size, bytes }) };
}

module.exports = { makeReadCache, parseQuery, cacheKey, writeTarget };
