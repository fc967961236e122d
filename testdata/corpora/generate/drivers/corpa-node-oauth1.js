// Signs each request of stdin (JSON lines) with npm's node-oauth1 (the
// Netflix oauth.js): completeRequest({method, action: url, parameters}),
// the URL as given (the library reads its query) and a form body's
// parameters decoded as [name, value] pairs, then getAuthorizationHeader.
// Writes the base string it hashed and that header.
'use strict';
const { hashed, isForm, pairs, run } = require('./corpa-lines.js');
const OAuth = require('node-oauth1');
const version = require('node-oauth1/package.json').version;

run(version, (r) => {
  const parameters = r.body !== '' && isForm(r.content_type) ? pairs(r.body) : [];
  parameters.push(['oauth_nonce', r.nonce], ['oauth_timestamp', r.timestamp]);
  const message = { method: r.method, action: r.url.split('#')[0], parameters };
  const accessor = { consumerKey: r.consumer_key, consumerSecret: r.consumer_secret };
  if (r.token !== '') Object.assign(accessor, { token: r.token, tokenSecret: r.token_secret });
  OAuth.completeRequest(message, accessor);
  if (hashed.length !== 1) throw new Error(`${hashed.length} messages hashed`);
  return { got: hashed[0], authorization: OAuth.getAuthorizationHeader('', message.parameters) };
});
