// Authentication and authorisation of the bundled store, as Apache CouchDB 3 does them.
//
// The users, the cookie secret and the instance id come from an auth file written by
// `scenariogen env up` (mode 0600): no password is stored here, only PBKDF2-SHA256 keys.
//
// - Basic auth and cookie sessions (`POST /_session` with a JSON or form body, a cookie
//   `AuthSession` with Max-Age and Expires, `GET /_session`, `DELETE /_session`).
// - Anonymous requests get 401 everywhere except `GET /`, `GET /_up` and `/_session`.
// - `/_config` (and `/_node/*/_config`) is refused over HTTP for everybody: no log
//   redirection, no reading of secrets.
// - Admins (role `_admin`) may do anything else. Other users are read-only: GET/HEAD and
//   the read-only POST endpoints (`_find`, `_all_docs`, `_bulk_get`, `_explain`), never on a
//   hidden database (a name matching one of `hidden_db_patterns`, e.g. the truth database),
//   never on system databases; `_all_dbs` leaves hidden databases out. The name checked is
//   the one the storage layer opens (dbname.js); any other spelling is refused first.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const express = require('express');
const { RequestError, requestTarget } = require('./dbname');

const COOKIE = 'AuthSession';
const READ_POSTS = new Set(['_find', '_all_docs', '_bulk_get', '_explain']);

function loadAuth(file) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!raw || !Array.isArray(raw.users) || typeof raw.secret !== 'string' || typeof raw.instance_id !== 'string') {
    throw new Error('the auth file lacks users, secret or instance_id');
  }
  return {
    secret: raw.secret,
    instanceId: raw.instance_id,
    timeoutS: Number(raw.session_timeout_s) > 0 ? Number(raw.session_timeout_s) : 600,
    users: new Map(raw.users.map((u) => [u.name, u])),
    hidden: (raw.hidden_db_patterns || []).map((p) => new RegExp(p)),
  };
}

function send(res, status, body, headers) {
  res.status(status);
  res.set('Content-Type', 'application/json');
  if (headers) res.set(headers);
  res.send(JSON.stringify(body));
}

function unauthorized(res, reason) {
  send(res, 401, { error: 'unauthorized', reason: reason || 'You are not authorized to access this db.' });
}

function forbidden(res, reason) {
  send(res, 403, { error: 'forbidden', reason });
}

function makeAuth(auth) {
  const verified = new Map(); // sha256(name\0password) -> user, so PBKDF2 runs once per login

  function checkPassword(name, password) {
    const user = auth.users.get(name);
    if (!user || typeof password !== 'string') return null;
    const cacheKey = crypto.createHash('sha256').update(`${name}\0${password}`).digest('hex');
    if (verified.get(cacheKey) === user) return user;
    const key = crypto.pbkdf2Sync(password, Buffer.from(user.salt, 'hex'), user.iterations, 32, 'sha256');
    const want = Buffer.from(user.derived_key, 'hex');
    if (want.length !== key.length || !crypto.timingSafeEqual(want, key)) return null;
    verified.set(cacheKey, user);
    return user;
  }

  function cookieMac(user, payload) {
    return crypto.createHmac('sha256', auth.secret + user.salt).update(payload).digest('hex');
  }

  function makeCookie(user, nowS) {
    const payload = `${user.name}:${nowS.toString(16).toUpperCase()}`;
    return Buffer.from(`${payload}:${cookieMac(user, payload)}`).toString('base64url');
  }

  function userFromCookie(value, nowS) {
    let text;
    try { text = Buffer.from(value, 'base64url').toString('utf8'); } catch (err) { return null; }
    const parts = text.split(':');
    if (parts.length < 3) return null;
    const mac = parts.pop();
    const hex = parts.pop();
    const name = parts.join(':');
    const user = auth.users.get(name);
    if (!user) return null;
    const want = cookieMac(user, `${name}:${hex}`);
    if (mac.length !== want.length || !crypto.timingSafeEqual(Buffer.from(mac), Buffer.from(want))) return null;
    const issued = parseInt(hex, 16);
    if (!Number.isFinite(issued) || nowS >= issued + auth.timeoutS) return null; // expired
    return user;
  }

  function readCookie(req) {
    const header = req.headers.cookie || '';
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim();
    }
    return null;
  }

  function setCookie(res, value, maxAge) {
    const expires = new Date(Date.now() + maxAge * 1000).toUTCString();
    res.set('Set-Cookie', `${COOKIE}=${value}; Version=1; Expires=${expires}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax`);
  }

  // Returns {user, how} for valid credentials, {user: null} for none, {bad: true} for a
  // wrong basic-auth password (CouchDB answers 401 at once).
  function identify(req) {
    const header = req.headers.authorization || '';
    if (/^basic /i.test(header)) {
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const user = colon < 0 ? null : checkPassword(decoded.slice(0, colon), decoded.slice(colon + 1));
      return user ? { user, how: 'default' } : { bad: true };
    }
    const cookie = readCookie(req);
    if (cookie) {
      const user = userFromCookie(cookie, Math.floor(Date.now() / 1000));
      if (user) return { user, how: 'cookie' };
    }
    return { user: null };
  }

  function userCtx(user) {
    return { name: user ? user.name : null, roles: user ? user.roles : [] };
  }

  const isAdmin = (user) => Boolean(user && user.roles.includes('_admin'));
  const hiddenDb = (db) => auth.hidden.some((re) => re.test(db));

  const session = express.Router();
  session.use('/_session', express.json({ limit: '64kb' }), express.urlencoded({ extended: false, limit: '64kb' }));
  session.all('/_session', (req, res) => {
    const who = identify(req);
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (who.bad) { unauthorized(res, 'Name or password is incorrect.'); return; }
      send(res, 200, {
        ok: true,
        userCtx: userCtx(who.user),
        info: { authentication_handlers: ['cookie', 'default'], ...(who.user ? { authenticated: who.how } : {}) },
      });
      return;
    }
    if (req.method === 'POST') {
      const body = req.body || {};
      const user = checkPassword(String(body.name ?? body.username ?? ''), body.password == null ? undefined : String(body.password));
      if (!user) { unauthorized(res, 'Name or password is incorrect.'); return; }
      setCookie(res, makeCookie(user, Math.floor(Date.now() / 1000)), auth.timeoutS);
      send(res, 200, { ok: true, name: user.name, roles: user.roles });
      return;
    }
    if (req.method === 'DELETE') {
      setCookie(res, '', 0);
      send(res, 200, { ok: true });
      return;
    }
    send(res, 405, { error: 'method_not_allowed', reason: 'Only GET,HEAD,POST,DELETE allowed' });
  });

  function guard(req, res, next) {
    const path = req.path;
    if ((req.method === 'GET' || req.method === 'HEAD') && (path === '/' || path === '/_up')) {
      if (path === '/' && req.method === 'GET') {
        send(res, 200, {
          couchdb: 'Welcome',
          version: '4.2.0',
          uuid: auth.instanceId,
          vendor: { name: 'scenariogen-couch (express-pouchdb)' },
        });
        return;
      }
      next();
      return;
    }
    const who = identify(req);
    if (who.bad) { unauthorized(res, 'Name or password is incorrect.'); return; }
    if (!who.user) { unauthorized(res); return; }
    let target;
    try {
      target = requestTarget(path);
    } catch (err) {
      if (!(err instanceof RequestError)) throw err;
      send(res, err.status, err.body);
      return;
    }
    const { segments, db } = target;
    if (segments.includes('_config')) {
      forbidden(res, 'the configuration of the bundled store is read-only over HTTP; edit the server\'s files and restart it');
      return;
    }
    // Past this point express-pouchdb (admin party behind this guard) must not see the
    // caller's credentials: it would try to check them against its own, empty, user list.
    delete req.headers.authorization;
    delete req.headers.cookie;
    if (isAdmin(who.user)) { next(); return; }
    if (segments[0] === '_all_dbs' && (req.method === 'GET' || req.method === 'HEAD')) {
      const originalSend = res.send.bind(res);
      res.send = (body) => {
        try {
          const names = JSON.parse(Buffer.isBuffer(body) ? body.toString() : String(body));
          if (Array.isArray(names)) return originalSend(JSON.stringify(names.filter((n) => !hiddenDb(n))));
        } catch (err) { /* not JSON: pass on unchanged */ }
        return originalSend(body);
      };
      next();
      return;
    }
    if (db === null) {
      forbidden(res, `user ${who.user.name} may only read fleet databases`);
      return;
    }
    if (hiddenDb(db)) {
      forbidden(res, 'You are not allowed to access this db.');
      return;
    }
    const readOnly = req.method === 'GET' || req.method === 'HEAD'
      || (req.method === 'POST' && segments.length === 2 && READ_POSTS.has(segments[1]));
    if (!readOnly || segments.includes('_security')) {
      forbidden(res, `user ${who.user.name} is read-only`);
      return;
    }
    next();
  }

  return { session, guard };
}

module.exports = { loadAuth, makeAuth };
