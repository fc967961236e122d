// Signs each request of stdin (JSON lines) with npm's twitter-api-v2 as
// its request maker does before every call: getHttpRequestArgs({url,
// method, body}) with the URL as given (its query moved into the query
// object) and a form body's parameters decoded into an object (the last
// of a repeated name); a non-form body goes as a Buffer, unsigned. Writes
// the base string its OAuth1Helper hashed, its Authorization header and
// the URL and body it would send.
'use strict';
const { hashed, isForm, pairs, run } = require('./corpa-lines.js');
const { TwitterApi } = require('twitter-api-v2');
const version = require('twitter-api-v2/package.json').version;

run(version, (r) => {
  const tokens = { appKey: r.consumer_key, appSecret: r.consumer_secret };
  if (r.token !== '') Object.assign(tokens, { accessToken: r.token, accessSecret: r.token_secret });
  const rm = new TwitterApi(tokens)._requestMaker;
  rm._oauth.getNonce = () => r.nonce;
  rm._oauth.getTimestamp = () => Number(r.timestamp);
  let body;
  const headers = {};
  if (r.body !== '' && isForm(r.content_type)) {
    body = Object.fromEntries(pairs(r.body));
    headers['content-type'] = r.content_type;
  } else if (r.body !== '') {
    body = Buffer.from(r.body);
    headers['content-type'] = r.content_type;
  }
  const args = rm.getHttpRequestArgs({ url: r.url.split('#')[0], method: r.method, body, headers });
  if (hashed.length !== 1) throw new Error(`${hashed.length} messages hashed`);
  const sent = args.body === undefined ? '' : Buffer.isBuffer(args.body) ? args.body.toString('utf8') : String(args.body);
  return { got: hashed[0], authorization: args.headers.Authorization, url: args.url.toString(), body: sent };
});
