// Signs each request of stdin (JSON lines) with the OAuth of Google's GData
// client library for .NET (C#; Debian libgdata2.1-cil, run on Mono), as
// its OAuth3LeggedAuthenticator signs a request: OAuthUtil.GenerateHeader
// of the request's System.Uri, the consumer's and the token's credentials
// and the method gives the Authorization header. It signs the URL only: a
// form body goes as it is, unsigned. It chooses its nonce and timestamp.
// The URL reported is the Uri's AbsoluteUri, the one the request is sent
// to.
//
// The base string is the library's own OAuthBase.GenerateSignatureBase of
// the same Uri and method with the header's nonce and timestamp (the
// OAuthParameters GenerateHeader builds); the generator checks the
// header's HMAC-SHA1 over it.
//
// Built at generate time: mcs -r:Google.GData.Client.dll
// -r:Newtonsoft.Json.dll gdata-oauth.cs, then run with mono (MONO_PATH
// naming both directories).
using System;
using System.Collections.Generic;
using System.IO;
using Google.GData.Client;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

class Driver
{
    static Dictionary<string, string> HeaderParams(string h)
    {
        var m = new Dictionary<string, string>();
        foreach (var p in h.Substring(h.IndexOf(' ') + 1).Split(','))
        {
            int eq = p.IndexOf('=');
            if (eq < 0) continue;
            m[p.Substring(0, eq).Trim()] = Uri.UnescapeDataString(p.Substring(eq + 1).Trim().Trim('"'));
        }
        return m;
    }

    static void Main()
    {
        var stdin = new StreamReader(Console.OpenStandardInput(), new System.Text.UTF8Encoding(false));
        var stdout = new StreamWriter(Console.OpenStandardOutput(), new System.Text.UTF8Encoding(false));
        stdout.AutoFlush = true;
        string line;
        while ((line = stdin.ReadLine()) != null)
        {
            var r = JObject.Parse(line);
            var o = new Dictionary<string, object>();
            o["id"] = (int)r["id"];
            try
            {
                string url = ((string)r["url"]).Split('#')[0];
                string method = (string)r["method"];
                var uri = new Uri(url);
                string token = (string)r["token"], tokenSecret = (string)r["token_secret"];
                string h = OAuthUtil.GenerateHeader(uri, (string)r["consumer_key"], (string)r["consumer_secret"],
                    token, tokenSecret, method);
                var hp = HeaderParams(h);
                var p = new OAuthParameters
                {
                    ConsumerKey = (string)r["consumer_key"],
                    ConsumerSecret = (string)r["consumer_secret"],
                    Token = token,
                    TokenSecret = tokenSecret,
                    SignatureMethod = hp["oauth_signature_method"],
                    Nonce = hp["oauth_nonce"],
                    Timestamp = hp["oauth_timestamp"],
                };
                o["got"] = OAuthBase.GenerateSignatureBase(uri, method, p);
                // "Authorization: OAuth ...", the header line the library adds.
                o["authorization"] = h.StartsWith("Authorization: ") ? h.Substring("Authorization: ".Length) : h;
                o["url"] = uri.AbsoluteUri;
            }
            catch (Exception e)
            {
                o["error"] = e.GetType().Name + ": " + e.Message;
            }
            stdout.WriteLine(JsonConvert.SerializeObject(o));
        }
    }
}
