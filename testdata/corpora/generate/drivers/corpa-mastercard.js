// Signs each request of stdin (JSON lines) with npm's
// mastercard-oauth1-signer as its README shows:
// getAuthorizationHeader(uri, method, payload, consumerKey, signingKey),
// the URL as given and the body as the payload (its oauth_body_hash; a
// form body's parameters are not signed). It signs with RSA-SHA256 only:
// the driver checks the signature with the public key of a key made at
// start, and writes the header without it (the generator checks HMAC-SHA1
// signatures only). Writes the base string it signed and that header.
'use strict';
const crypto = require('crypto');
const { run } = require('./corpa-lines.js');
const OAuth = require('mastercard-oauth1-signer');
const version = require('mastercard-oauth1-signer/package.json').version;

const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = privateKey.export({ type: 'pkcs8', format: 'pem' });
let signed = [];
const sign = OAuth.signSignatureBaseString;
OAuth.signSignatureBaseString = function (sbs, ...rest) {
  const sig = sign.call(this, sbs, ...rest);
  signed.push([sbs, sig]);
  return sig;
};

run(version, (r) => {
  signed = [];
  OAuth.getNonce = () => r.nonce;
  OAuth.getTimestamp = () => Number(r.timestamp);
  const h = OAuth.getAuthorizationHeader(r.url.split('#')[0], r.method, r.body === '' ? null : r.body, r.consumer_key, signingKey);
  if (signed.length !== 1) throw new Error(`${signed.length} messages signed`);
  const [sbs, sig] = signed[0];
  if (!crypto.verify('RSA-SHA256', Buffer.from(sbs), publicKey, Buffer.from(sig, 'base64'))) throw new Error('signature not over the captured base string');
  const rest = h.replace(/^OAuth /, '').split(',').filter((p) => !p.startsWith('oauth_signature='));
  return { got: sbs, authorization: 'OAuth ' + rest.join(',') };
});
