# Signs each request of stdin (JSON lines) with the Ruby oauth gem, through
# its Net::HTTP client (oauth!), and writes the base string it hashes
# (the request's signature_base_string with the same nonce and timestamp,
# read before oauth! sets the header) and the Authorization header it set,
# as JSON lines. The generator checks the header's signature against it.
require 'json'
require 'net/http'
require 'oauth'
require 'oauth/client/net_http'

$stdout.sync = true
STDIN.each_line do |line|
  r = JSON.parse(line)
  out = { 'id' => r['id'], 'version' => OAuth::VERSION }
  begin
    scheme, rest = r['url'].split('://', 2)
    rest = rest.split('#', 2)[0]
    i = rest.index(%r{[/?]}) || rest.length
    hostport, target = rest[0...i], rest[i..]
    target = '/' + target unless target.start_with?('/')
    u = URI.parse(scheme + '://' + hostport + '/')
    http = Net::HTTP.new(u.hostname, u.port)
    http.use_ssl = (scheme.downcase == 'https')
    body = r['body'] != ''
    req = Net::HTTPGenericRequest.new(r['method'], body, true, target)
    if body
      req.body = r['body']
    end
    req['Content-Type'] = r['content_type'] if r['content_type'] != ''
    consumer = OAuth::Consumer.new(r['consumer_key'], r['consumer_secret'])
    token = r['token'] == '' ? nil : OAuth::Token.new(r['token'], r['token_secret'])
    opts = { nonce: r['nonce'], timestamp: r['timestamp'] }
    # Before oauth!, which sets the header that a second reading would take in.
    out['got'] = req.signature_base_string(http, consumer, token, opts)
    req.oauth!(http, consumer, token, opts)
    out['authorization'] = req['Authorization']
  rescue StandardError => e
    out['error'] = "#{e.class}: #{e.message}"
  end
  puts JSON.generate(out)
end
