// Signs each request of stdin (JSON lines) with npm's flickr-sdk as its
// REST service does: OAuthAuth.sign(method, url, params) with the URL
// without its query and the query's and a form body's parameters, decoded,
// set one by one in a GET (URLSearchParams.set: the last of a repeated
// name), then FetchTransport.get, which puts them all in the query (a
// stubbed fetch records the URL). The protocol parameters travel in that
// query; the URL written leaves them out and the header written carries
// them, so that the generator reads them as for the other libraries.
'use strict';
const { hashed, isForm, pairs, run } = require('./corpa-lines.js');
const { OAuthAuth, FetchTransport, GET } = require('flickr-sdk');
const version = require('flickr-sdk/package.json').version;

let fetched;
globalThis.fetch = async (url) => { fetched = String(url); return { ok: true }; };

run(version, async (r) => {
  const [base, query = ''] = r.url.split('#')[0].split(/\?(.*)/s);
  const ps = pairs(query);
  if (r.body !== '' && isForm(r.content_type)) ps.push(...pairs(r.body));
  const auth = new OAuthAuth(r.consumer_key, r.consumer_secret, r.token === '' ? false : r.token, r.token === '' ? false : r.token_secret);
  auth.oauth.nonce = () => r.nonce;
  auth.oauth.timestamp = () => r.timestamp;
  const params = new GET();
  for (const [k, v] of ps) params.set(k, v);
  await auth.sign(r.method, base, params);
  if (hashed.length !== 1) throw new Error(`${hashed.length} messages hashed`);
  fetched = undefined;
  await new FetchTransport().get(base, params);
  const oauth = [];
  for (const [k, v] of new URL(fetched).searchParams) {
    if (k.startsWith('oauth_')) oauth.push(`${k}="${encodeURIComponent(v)}"`);
  }
  // The query as sent, less the protocol parameters.
  const rest = fetched.split('?')[1].split('&').filter((kv) => !kv.startsWith('oauth_')).join('&');
  const sent = fetched.split('?')[0] + (rest === '' ? '' : '?' + rest);
  return { got: hashed[0], authorization: 'OAuth ' + oauth.join(', '), url: sent, body: '' };
});
