<?php
// Signs each request of stdin (JSON lines) with PHP's PECL oauth: an OAuth
// object (HMAC-SHA1, Authorization header) given the URL as sent and the
// form body's parameters as an array, as fetch() takes them (the body
// reported is that array's, as fetch() would send it). The object
// keeps its base string only after a fetch, which would go on the network:
// getRequestHeader() signs without sending, and the base string is the
// library's own oauth_get_sbs() of the same URL and parameters with the
// header's protocol parameters. The generator checks the header's
// signature against it, so only what the object hashed is kept.
$version = phpversion('oauth');
while (($line = fgets(STDIN)) !== false) {
    $r = json_decode($line, true);
    $out = ['id' => $r['id'], 'version' => $version];
    try {
        $params = [];
        if (stripos($r['content_type'], 'application/x-www-form-urlencoded') === 0 && $r['body'] !== '') {
            foreach (explode('&', $r['body']) as $kv) {
                if ($kv === '') {
                    continue;
                }
                $p = explode('=', $kv, 2);
                $params[urldecode($p[0])] = urldecode($p[1] ?? '');
            }
        }
        $url = explode('#', $r['url'], 2)[0];
        $o = new OAuth($r['consumer_key'], $r['consumer_secret'], OAUTH_SIG_METHOD_HMACSHA1, OAUTH_AUTH_TYPE_AUTHORIZATION);
        if ($r['token'] !== '') {
            $o->setToken($r['token'], $r['token_secret']);
        }
        $o->setNonce($r['nonce']);
        $o->setTimestamp($r['timestamp']);
        $h = $o->getRequestHeader($r['method'], $url, $params);
        if ($h === false) {
            throw new Exception('getRequestHeader refused the request');
        }
        preg_match_all('/(\w+)="([^"]*)"/', $h, $m, PREG_SET_ORDER);
        $all = $params;
        foreach ($m as $kv) {
            if ($kv[1] !== 'oauth_signature') {
                $all[rawurldecode($kv[1])] = rawurldecode($kv[2]);
            }
        }
        $out['got'] = oauth_get_sbs($r['method'], $url, $all);
        if ($params) {
            // The body fetch() would send: the array, repeated names gone.
            $kvs = [];
            foreach ($params as $k => $v) {
                $kvs[] = rawurlencode($k) . '=' . rawurlencode($v);
            }
            $out['body'] = implode('&', $kvs);
        }
        $out['authorization'] = $h;
    } catch (Throwable $e) {
        $out['error'] = get_class($e) . ': ' . $e->getMessage();
    }
    echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
}
