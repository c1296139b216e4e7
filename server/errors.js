// What the server says about an error, to a client and in its log (server.log is this
// process's stdout and stderr): one JSON body or one line, never a stack trace or an
// absolute path. A stack names the server's files and a LevelDB error names the data
// folder, which holds the hidden databases too.
'use strict';

const util = require('util');

// An absolute path: a "/" at the start of a word (not inside a URL or a relative path),
// up to the next blank, quote, bracket or colon.
const ABSOLUTE_PATH = /(?<![\w.:/~-])\/[^\s'"`()<>,;:]+/g;
const STACK_FRAME = /\n\s+at [^\n]*/g;
const ERROR_NAMES = { 413: 'too_large', 415: 'bad_content_type' }; // CouchDB's; else bad_request

function scrub(text) {
  return String(text).replace(STACK_FRAME, '').replace(ABSOLUTE_PATH, '<path>');
}

function describe(err) {
  if (!(err instanceof Error)) return scrub(util.format('%s', err)).slice(0, 500);
  const code = err.code ? ` (${err.code})` : '';
  return `${err.name}${code}: ${scrub(err.message)}`.slice(0, 500);
}

// Our own lines, already scrubbed: unscrubbed a request's URL path would pass for a file's.
const log = console.error.bind(console);

// Library code prints errors with their stacks (pouchdb-all-dbs, the replicate route).
function quietConsole() {
  for (const level of ['log', 'info', 'warn', 'error']) {
    const write = console[level].bind(console);
    console[level] = (...args) => write(scrub(util.format(...args.map((a) => (a instanceof Error ? describe(a) : a)))));
  }
  process.on('uncaughtException', (err) => {
    log(`fatal: ${describe(err)}`);
    process.exit(1);
  });
}

function sendJson(res, status, body) {
  res.status(status).set('Content-Type', 'application/json').send(JSON.stringify(body));
}

// express-pouchdb answers a storage failure with the error's message as `reason`.
function scrubErrorReplies(_req, res, next) {
  const send = res.send.bind(res);
  res.send = (body) => {
    if (res.statusCode >= 400 && (typeof body === 'string' || Buffer.isBuffer(body))) return send(scrub(body.toString()));
    return send(body);
  };
  next();
}

// Last in the chain: what Express would answer with an HTML page and a stack. (Four
// parameters: Express tells an error handler by its arity.)
function errorHandler(err, req, res, _next) {
  const status = Number.isInteger(err.status) && err.status >= 400 && err.status < 600 ? err.status : 500;
  log(`request failed: ${status} ${req.method} ${req.path}: ${describe(err)}`);
  if (res.headersSent) { res.destroy(); return; }
  if (status >= 500) {
    sendJson(res, status, { error: 'internal_server_error', reason: 'the server failed on this request; its log names the error' });
  } else {
    sendJson(res, status, { error: ERROR_NAMES[status] || 'bad_request', reason: describe(err) });
  }
}

module.exports = { describe, quietConsole, scrubErrorReplies, errorHandler };
