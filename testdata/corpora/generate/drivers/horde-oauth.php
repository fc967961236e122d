<?php
// Signs each request of stdin (JSON lines) with Horde's OAuth client
// (Debian php-horde-oauth), as Horde's own services use it: a
// Horde_Oauth_Request of the URL without its query and an array of the
// query's and the form body's parameters (urldecoded; a repeated name
// keeps its last value, the body's over the query's), signed with
// HMAC-SHA1, its header from buildAuthorizationHeader(); the request
// reported sends that array as Horde's services do (Horde_Service_Twitter:
// in the body of a form, else in the query). The base string is
// the request's getSignatureBaseString() after sign(), which hashes it.
//
// Horde_Oauth 2.0.4 does not compile on PHP 8: line 187 nests a ternary
// without parentheses. The driver loads Request.php with that expression
// parenthesized as PHP 5 and 7, which the library was written for, read it
// (left to right); the rest of the library is run as installed.
spl_autoload_register(function ($class) {
    $file = '/usr/share/php/' . str_replace('_', '/', $class) . '.php';
    if ($class === 'Horde_Oauth_Request') {
        $src = file_get_contents($file);
        $old = "!empty(\$parts['port'])\n            ? \$parts['port']\n            : \$scheme == 'https' ? '443' : '80';";
        $new = "(!empty(\$parts['port'])\n            ? \$parts['port']\n            : \$scheme == 'https') ? '443' : '80';";
        if (substr_count($src, $old) !== 1) {
            throw new Exception('Horde_Oauth_Request: the ternary of line 187 is not as expected');
        }
        eval('?>' . str_replace($old, $new, $src));
        return;
    }
    if (is_file($file)) {
        require $file;
    }
});

function parse_pairs($s)
{
    $a = [];
    foreach (explode('&', $s) as $kv) {
        if ($kv === '') {
            continue;
        }
        $p = explode('=', $kv, 2);
        $a[urldecode($p[0])] = urldecode($p[1] ?? '');
    }
    return $a;
}

function build_pairs($a)
{
    $kvs = [];
    foreach ($a as $k => $v) {
        $kvs[] = rawurlencode($k) . '=' . rawurlencode($v);
    }
    return implode('&', $kvs);
}

while (($line = fgets(STDIN)) !== false) {
    $r = json_decode($line, true);
    $out = ['id' => $r['id']];
    try {
        $url = explode('#', $r['url'], 2)[0];
        $parts = explode('?', $url, 2);
        $base = $parts[0];
        $query = isset($parts[1]) ? parse_pairs($parts[1]) : [];
        $body = [];
        $form = stripos($r['content_type'], 'application/x-www-form-urlencoded') === 0;
        if ($form) {
            $body = parse_pairs($r['body']);
        }
        // The body's value of a name wins, as array_merge would have it (which
        // would renumber integer keys).
        $params = [];
        foreach ($query as $k => $v) {
            $params[$k] = $v;
        }
        foreach ($body as $k => $v) {
            $params[$k] = $v;
        }
        $user = $params;
        $params['oauth_nonce'] = $r['nonce'];
        $params['oauth_timestamp'] = $r['timestamp'];
        $sig = new Horde_Oauth_SignatureMethod_HmacSha1();
        $consumer = new Horde_Oauth_Consumer([
            'key' => $r['consumer_key'], 'secret' => $r['consumer_secret'], 'signatureMethod' => $sig,
            'requestTokenUrl' => 'https://provider.example/request', 'authorizeTokenUrl' => 'https://provider.example/authorize',
            'accessTokenUrl' => 'https://provider.example/access',
        ]);
        $token = $r['token'] === '' ? null : new Horde_Oauth_Token($r['token'], $r['token_secret']);
        $req = new Horde_Oauth_Request($base, $params, $r['method']);
        $req->sign($consumer->signatureMethod, $consumer, $token);
        $out['got'] = $req->getSignatureBaseString();
        $out['authorization'] = $req->buildAuthorizationHeader();
        // The client sends the parameters it gave the library, as Horde's
        // services do: in the body of a form, else in the query.
        $sent = build_pairs($user);
        if ($form) {
            $out['url'] = $base;
            $out['body'] = $sent;
        } else {
            $out['url'] = $sent === '' ? $base : $base . '?' . $sent;
        }
    } catch (Throwable $e) {
        $out['error'] = get_class($e) . ': ' . $e->getMessage();
    }
    echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
}
