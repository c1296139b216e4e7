// The one name of the database a request reaches, decided before any access check.
//
// express-pouchdb routes a database request on the first segment of the URL path,
// percent-decoded once (an Express route parameter), and opens the database
// cleanFilename(segment) names: sanitize-filename drops / ? < > \ : * | " and control
// characters (C0 and C1), strips trailing dots and spaces, renames Windows device names
// (con, aux, ...) and cuts at 255 bytes. An access check of any other spelling checks a
// different name (issue 28: `scenariogen_tr:uth_x` passed the check and opened
// `scenariogen_truth_x`). So a name that this cleaning would change is refused rather
// than cleaned, and so is a name CouchDB itself refuses: lowercase ASCII only, so that no
// case-insensitive or normalising file system can fold two spellings onto one database.
// The express-pouchdb parts that rewrite the URL after this point (vhosts, _rewrite, the
// `_node/node1@127.0.0.1` prefix) are switched off in server.js.
'use strict';

const cleanFilename = require('express-pouchdb/lib/clean-filename');

// CouchDB's rule without "/", which the storage layer would drop.
const DB_NAME = /^[a-z][a-z0-9_$()+-]*$/;
// The name is not echoed: a reply never spells a database the caller may not see.
const ILLEGAL = 'Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, '
  + 'and - are allowed. Must begin with a letter.';

class RequestError extends Error {
  constructor(status, error, reason) {
    super(reason);
    this.status = status;
    this.body = { error, reason };
  }
}

function decode(segment) {
  try {
    return decodeURIComponent(segment);
  } catch (err) {
    throw new RequestError(400, 'bad_request',
      'the URL path holds a malformed percent-escape; write a literal % as %25');
  }
}

// `path` (Express's req.path, the one its router matches) as decoded segments and the
// database it names: null for a server-level path (`/`, `/_all_dbs`, `/_node/...`, system
// databases such as `/_users`). Throws RequestError for a malformed path or a name the
// storage layer would change.
function requestTarget(path) {
  if (!path.startsWith('/')) throw new RequestError(400, 'bad_request', 'the URL path must start with /');
  const segments = path.slice(1).split('/').map(decode);
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop(); // Express ignores one trailing slash
  const first = segments[0];
  if (first === '') return { segments, db: null };
  if (cleanFilename(first) !== first) throw new RequestError(400, 'illegal_database_name', ILLEGAL);
  if (first.startsWith('_')) return { segments, db: null };
  if (!DB_NAME.test(first)) throw new RequestError(400, 'illegal_database_name', ILLEGAL);
  return { segments, db: first };
}

module.exports = { DB_NAME, RequestError, requestTarget };
