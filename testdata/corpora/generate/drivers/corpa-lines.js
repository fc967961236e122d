// Shared by the npm drivers added with corpa-*.js: the JSON-lines loop, the
// form body decoded as a browser or a Node user would decode it, and a
// recorder of the messages that crypto.createHmac is given, so that a
// driver captures the base string its library hashed.
'use strict';
const crypto = require('crypto');
const readline = require('readline');

// hashed holds every message given to an HMAC since the last reset.
const hashed = [];
const createHmac = crypto.createHmac;
crypto.createHmac = function (alg, key, ...rest) {
  const h = createHmac.call(crypto, alg, key, ...rest);
  const update = h.update;
  h.update = function (data, enc) {
    hashed.push(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
    return update.call(h, data, enc);
  };
  return h;
};

// isForm reports whether a content type is a form's.
function isForm(ct) {
  return /^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(ct || '');
}

// pairs decodes a query or form body into [name, value] pairs, in order,
// "+" as a space.
function pairs(s) {
  const out = [];
  for (const kv of s.split('&')) {
    if (kv === '') continue;
    const i = kv.indexOf('=');
    const dec = (x) => decodeURIComponent(x.replace(/\+/g, ' '));
    out.push([dec(i < 0 ? kv : kv.slice(0, i)), i < 0 ? '' : dec(kv.slice(i + 1))]);
  }
  return out;
}

// run calls sign(request) for each request of stdin and writes what it
// returns, with the request's id and the library's version, as a line.
function run(version, sign) {
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  const queue = [];
  let busy = false;
  const next = async () => {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const r = queue.shift();
      const out = { id: r.id, version };
      hashed.length = 0;
      try {
        Object.assign(out, await sign(r));
      } catch (e) {
        out.error = String(e && e.message || e);
      }
      process.stdout.write(JSON.stringify(out) + '\n');
    }
    busy = false;
  };
  rl.on('line', (line) => { queue.push(JSON.parse(line)); next(); });
}

module.exports = { hashed, isForm, pairs, run };
