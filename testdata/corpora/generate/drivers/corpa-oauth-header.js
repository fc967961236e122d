// Signs each request of stdin (JSON lines) with npm's oauth-header as its
// README shows: new Generator(key, secret, token, tokenSecret)
// .generateHeaderValue(method, url), which takes the URL only (a form
// body's parameters cannot be given to it), with an empty token when the
// request has none. Writes the base string it hashed and its header.
'use strict';
const { hashed, run } = require('./corpa-lines.js');
const oh = require('oauth-header');
const version = require('oauth-header/package.json').version;

run(version, (r) => {
  // Its nonce and timestamp come from these exports, which it calls.
  oh.randomValueHex = () => r.nonce;
  oh.unix = () => Number(r.timestamp);
  const g = new oh.Generator(r.consumer_key, r.consumer_secret, r.token, r.token_secret);
  const h = g.generateHeaderValue(r.method, r.url.split('#')[0]);
  if (hashed.length !== 1) throw new Error(`${hashed.length} messages hashed`);
  return { got: hashed[0], authorization: h };
});
