// Signs each request of stdin (JSON lines) with Java's signpost (Debian
// liboauth-signpost-java), as its README shows for Apache HttpClient 4: a
// CommonsHttpOAuthConsumer signs an HttpUriRequest of the method and URL
// (the body as a StringEntity of the request's content type), putting the
// Authorization header on it. Its nonce and timestamp are the request's
// (generateNonce and generateTimestamp overridden); the base string is
// captured in its HmacSha1MessageSigner, which hashes
// new SignatureBaseString(request, parameters).generate(): the subclass
// builds the same object before calling it. Run with java's source-file
// mode and a class path of signpost-core, signpost-commonshttp4,
// httpclient, httpcore, commons-codec, commons-logging and gson.
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import oauth.signpost.commonshttp.CommonsHttpOAuthConsumer;
import oauth.signpost.exception.OAuthMessageSignerException;
import oauth.signpost.http.HttpParameters;
import oauth.signpost.http.HttpRequest;
import oauth.signpost.signature.HmacSha1MessageSigner;
import oauth.signpost.signature.SignatureBaseString;
import org.apache.http.client.methods.HttpEntityEnclosingRequestBase;
import org.apache.http.client.methods.HttpRequestBase;
import org.apache.http.entity.StringEntity;

public class signpost {
    /** A request of any method, with a body if it has one. */
    static class AnyRequest extends HttpEntityEnclosingRequestBase {
        final String method;

        AnyRequest(String method, String url) {
            this.method = method;
            setURI(URI.create(url));
        }

        @Override
        public String getMethod() {
            return method;
        }
    }

    /** The signer, keeping the base string it hashes. */
    static class Recorder extends HmacSha1MessageSigner {
        String sbs;

        @Override
        public String sign(HttpRequest request, HttpParameters params) throws OAuthMessageSignerException {
            sbs = new SignatureBaseString(request, params).generate();
            return super.sign(request, params);
        }
    }

    static class Consumer extends CommonsHttpOAuthConsumer {
        final String nonce, timestamp;

        Consumer(String key, String secret, String nonce, String timestamp) {
            super(key, secret);
            this.nonce = nonce;
            this.timestamp = timestamp;
        }

        @Override
        protected String generateNonce() {
            return nonce;
        }

        @Override
        protected String generateTimestamp() {
            return timestamp;
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
                String url = r.get("url").getAsString().split("#", 2)[0];
                AnyRequest req = new AnyRequest(r.get("method").getAsString(), url);
                String body = r.get("body").getAsString(), ct = r.get("content_type").getAsString();
                if (!body.isEmpty() || !ct.isEmpty()) {
                    StringEntity e = new StringEntity(body, StandardCharsets.UTF_8);
                    e.setContentType(ct.isEmpty() ? null : ct);
                    req.setEntity(e);
                }
                Consumer c = new Consumer(r.get("consumer_key").getAsString(), r.get("consumer_secret").getAsString(),
                        r.get("nonce").getAsString(), r.get("timestamp").getAsString());
                Recorder rec = new Recorder();
                c.setMessageSigner(rec);
                String token = r.get("token").getAsString();
                if (!token.isEmpty()) {
                    c.setTokenWithSecret(token, r.get("token_secret").getAsString());
                }
                c.sign(req);
                out.put("got", rec.sbs);
                out.put("authorization", req.getFirstHeader("Authorization").getValue());
            } catch (Exception e) {
                out.put("error", e.toString());
            }
            System.out.println(gson.toJson(out));
        }
    }
}
