// Signs each request of stdin (JSON lines) with npm's oauth-1.0a, as its
// README shows: authorize({url, method, data}, token) with HMAC-SHA1 and
// the form body's parameters, decoded, in data (a repeated name as an
// array); and writes the base string it hashed (captured in the
// hash_function it calls with it) and its Authorization header (toHeader)
// as JSON lines. Run with NODE_PATH naming a node_modules that holds it.
'use strict';
const crypto = require('crypto');
const readline = require('readline');
const OAuth = require('oauth-1.0a');
const version = require('oauth-1.0a/package.json').version;

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  const r = JSON.parse(line);
  const out = { id: r.id, version };
  try {
    let hashed = null;
    const oauth = OAuth({
      consumer: { key: r.consumer_key, secret: r.consumer_secret },
      signature_method: 'HMAC-SHA1',
      hash_function(base, key) {
        hashed = base;
        return crypto.createHmac('sha1', key).update(base).digest('base64');
      },
    });
    oauth.getNonce = () => r.nonce;
    oauth.getTimeStamp = () => Number(r.timestamp);
    const data = {};
    if (/^application\/x-www-form-urlencoded/i.test(r.content_type) && r.body !== '') {
      for (const kv of r.body.split('&')) {
        if (kv === '') continue;
        const i = kv.indexOf('=');
        const dec = (s) => decodeURIComponent(s.replace(/\+/g, ' '));
        const k = dec(i < 0 ? kv : kv.slice(0, i));
        const v = i < 0 ? '' : dec(kv.slice(i + 1));
        if (!Object.prototype.hasOwnProperty.call(data, k)) data[k] = v;
        else if (Array.isArray(data[k])) data[k].push(v);
        else data[k] = [data[k], v];
      }
    }
    const token = r.token === '' ? undefined : { key: r.token, secret: r.token_secret };
    const url = r.url.split('#')[0];
    const signed = oauth.authorize({ url, method: r.method, data }, token);
    out.got = hashed;
    out.authorization = oauth.toHeader(signed).Authorization;
  } catch (e) {
    out.error = String(e);
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
