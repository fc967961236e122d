// Signs each request of stdin (JSON lines) with Google's OAuth client for
// Java (Debian libgoogle-oauth-client-java), as its documentation shows:
// an OAuthParameters (consumer key, token, an OAuthHmacSigner) is the
// initializer of an HttpRequestFactory, and signs the request it builds
// when it is executed, choosing its own nonce and timestamp. The URL is
// the library's GenericUrl of the request's; a form body is an
// UrlEncodedContent of the body's parameters as the library's
// UrlEncodedParser reads them (other bodies go as they are). The request
// goes to a transport that sends nothing and keeps what would be sent:
// URL, body, Authorization header. The base string is the one the signer
// is handed (OAuthSigner.computeSignature), by an OAuthSigner that records
// it and lets OAuthHmacSigner sign it.
import com.google.api.client.auth.oauth.OAuthHmacSigner;
import com.google.api.client.auth.oauth.OAuthParameters;
import com.google.api.client.auth.oauth.OAuthSigner;
import com.google.api.client.http.ByteArrayContent;
import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpContent;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpTransport;
import com.google.api.client.http.LowLevelHttpRequest;
import com.google.api.client.http.LowLevelHttpResponse;
import com.google.api.client.http.UrlEncodedContent;
import com.google.api.client.http.UrlEncodedParser;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.LinkedHashMap;
import java.util.Map;

public class google {
    /** A transport that sends nothing and keeps the request it was to send. */
    static class Capture extends HttpTransport {
        String url, authorization, body;

        @Override
        protected LowLevelHttpRequest buildRequest(String method, String url) {
            this.url = url;
            return new LowLevelHttpRequest() {
                @Override
                public void addHeader(String name, String value) {
                    if (name.equalsIgnoreCase("Authorization")) {
                        authorization = value;
                    }
                }

                @Override
                public LowLevelHttpResponse execute() throws java.io.IOException {
                    if (getStreamingContent() != null) {
                        ByteArrayOutputStream b = new ByteArrayOutputStream();
                        getStreamingContent().writeTo(b);
                        body = b.toString(StandardCharsets.UTF_8);
                    }
                    return new Empty();
                }
            };
        }
    }

    static class Empty extends LowLevelHttpResponse {
        public InputStream getContent() { return new ByteArrayInputStream(new byte[0]); }
        public String getContentEncoding() { return null; }
        public long getContentLength() { return 0; }
        public String getContentType() { return null; }
        public String getStatusLine() { return "HTTP/1.1 204 No Content"; }
        public int getStatusCode() { return 204; }
        public String getReasonPhrase() { return "No Content"; }
        public int getHeaderCount() { return 0; }
        public String getHeaderName(int i) { return null; }
        public String getHeaderValue(int i) { return null; }
    }

    /** The HMAC-SHA1 signer, keeping the base string it is given. */
    static class Recorder implements OAuthSigner {
        final OAuthHmacSigner hmac;
        String sbs;

        Recorder(OAuthHmacSigner hmac) { this.hmac = hmac; }

        public String getSignatureMethod() { return hmac.getSignatureMethod(); }

        public String computeSignature(String base) throws GeneralSecurityException {
            sbs = base;
            return hmac.computeSignature(base);
        }
    }

    public static void main(String[] args) throws Exception {
        Gson gson = new GsonBuilder().disableHtmlEscaping().create();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            JsonObject r = gson.fromJson(line, JsonObject.class);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("id", r.get("id").getAsInt());
            try {
                OAuthHmacSigner hmac = new OAuthHmacSigner();
                hmac.clientSharedSecret = r.get("consumer_secret").getAsString();
                OAuthParameters p = new OAuthParameters();
                p.consumerKey = r.get("consumer_key").getAsString();
                p.version = "1.0";
                String token = r.get("token").getAsString();
                if (!token.isEmpty()) {
                    p.token = token;
                    hmac.tokenSharedSecret = r.get("token_secret").getAsString();
                }
                Recorder rec = new Recorder(hmac);
                p.signer = rec;
                Capture t = new Capture();
                String body = r.get("body").getAsString(), ct = r.get("content_type").getAsString();
                HttpContent content = null;
                if (ct.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
                    Map<String, Object> data = new LinkedHashMap<>();
                    UrlEncodedParser.parse(body, data);
                    content = new UrlEncodedContent(data);
                } else if (!body.isEmpty() || !ct.isEmpty()) {
                    content = new ByteArrayContent(ct.isEmpty() ? null : ct, body.getBytes(StandardCharsets.UTF_8));
                }
                GenericUrl url = new GenericUrl(r.get("url").getAsString());
                HttpRequest req = t.createRequestFactory(p).buildRequest(r.get("method").getAsString(), url, content);
                req.execute();
                out.put("got", rec.sbs);
                out.put("authorization", t.authorization);
                out.put("url", t.url);
                if (t.body != null || !body.isEmpty()) {
                    out.put("body", t.body == null ? "" : t.body);
                }
                out.put("nonce", p.nonce);
                out.put("timestamp", p.timestamp);
            } catch (Exception e) {
                out.put("error", e.toString());
            }
            System.out.println(gson.toJson(out));
        }
    }
}
