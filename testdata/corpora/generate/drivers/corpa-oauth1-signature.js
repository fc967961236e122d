// Signs each request of stdin (JSON lines) with npm's oauth1-signature as
// its README shows: OAuth1Signature({consumerKey, consumerSecret, method,
// url, queryParams}) with the URL without its query and the query's
// parameters, decoded, in queryParams (the last of a repeated name); the
// request goes as given, body and all (the library takes none). It signs
// with a consumer key only (no token): a request with a token is refused.
// Writes the base string it hashed and a header of the protocol
// parameters it returns.
'use strict';
const { hashed, pairs, run } = require('./corpa-lines.js');
const OAuth1Signature = require('oauth1-signature');
const version = require('oauth1-signature/package.json').version;

run(version, (r) => {
  if (r.token !== '') throw new Error('the library signs without a token only');
  const [url, query = ''] = r.url.split('#')[0].split(/\?(.*)/s);
  const { params } = OAuth1Signature({
    consumerKey: r.consumer_key, consumerSecret: r.consumer_secret, method: r.method, url,
    queryParams: Object.fromEntries(pairs(query)), nonce: r.nonce, unixTimestamp: Number(r.timestamp),
  });
  if (hashed.length !== 1) throw new Error(`${hashed.length} messages hashed`);
  const h = Object.entries(params).filter(([k]) => k.startsWith('oauth_')).map(([k, v]) => `${k}="${encodeURIComponent(v)}"`);
  return { got: hashed[0], authorization: 'OAuth ' + h.join(', ') };
});
