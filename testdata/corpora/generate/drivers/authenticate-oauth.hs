-- Signs each request of stdin (JSON lines) with Haskell's authenticate-oauth
-- (Debian libghc-authenticate-oauth-dev), as its documentation shows:
-- signOAuth of an OAuth (HMAC-SHA1, consumer key and secret) and a
-- Credential (newCredential, or emptyCredential without a token) on an
-- http-client Request (parseRequest of the URL, the method, the body as
-- it is with its Content-Type header). The library chooses its nonce and
-- timestamp and adds oauth_body_hash for bodies that are not forms.
--
-- The module does not export getBaseString, the function signOAuth hashes:
-- the driver rebuilds its result from the same Request and the signed
-- header's parameters (the library's Credential less its secret), with the
-- library's own paramEncode and http-types' parseSimpleQuery as it does.
-- The generator proves the rebuilt string is what the library hashed by
-- checking the header's HMAC-SHA1 over it, and leaves out any that is not.
-- Run with runghc.
{-# LANGUAGE OverloadedStrings #-}
import Control.Exception (SomeException, evaluate, try)
import Control.Monad (forM_)
import Data.Aeson (Value (..), object, (.=), decodeStrict, encode)
import qualified Data.Aeson.Key as K
import qualified Data.Aeson.KeyMap as KM
import qualified Data.ByteString.Char8 as BS
import qualified Data.ByteString.Lazy.Char8 as BSL
import Data.Char (toUpper)
import Data.List (sort)
import Data.Maybe (fromMaybe)
import qualified Data.Text as T
import qualified Data.Text.Encoding as TE
import Network.HTTP.Client
import Network.HTTP.Types (parseSimpleQuery)
import Network.HTTP.Types.URI (urlDecode)
import System.IO
import Web.Authenticate.OAuth

str :: KM.KeyMap Value -> T.Text -> BS.ByteString
str o k = case KM.lookup (K.fromText k) o of
  Just (String s) -> TE.encodeUtf8 s
  _ -> ""

-- The parameters of an Authorization header as the library renders it:
-- "OAuth " then name="value" pairs, percent-encoded, joined with ",".
headerParams :: BS.ByteString -> [(BS.ByteString, BS.ByteString)]
headerParams h =
  [ (urlDecode False n, urlDecode False (BS.takeWhile (/= '"') (BS.drop 2 v)))
  | p <- BS.split ',' (fromMaybe h (BS.stripPrefix "OAuth " h))
  , let (n, v) = BS.break (== '=') p
  , n /= "realm"
  ]

-- What getBaseString (authenticate-oauth 1.7) computes, from the signed
-- request's protocol parameters.
baseString :: Request -> BS.ByteString -> [(BS.ByteString, BS.ByteString)] -> BS.ByteString
baseString req body auth =
  let bsMtd = BS.map toUpper (method req)
      isHttps = secure req
      scheme = if isHttps then "https" else "http"
      bsPort = if (isHttps && port req /= 443) || (not isHttps && port req /= 80)
                 then ':' `BS.cons` BS.pack (show (port req)) else ""
      bsURI = BS.concat [scheme, "://", host req, bsPort, path req]
      bsQuery = parseSimpleQuery (queryString req)
      -- The library's isBodyFormEncoded: the header's value exactly.
      form = lookup "Content-Type" (requestHeaders req) == Just "application/x-www-form-urlencoded"
      bsBodyQ = if form then parseSimpleQuery body else []
      allParams = bsQuery ++ bsBodyQ ++ filter ((/= "oauth_signature") . fst) auth
      bsParams = BS.intercalate "&" $ map (\(a, b) -> BS.concat [a, "=", b]) $ sort
                   $ map (\(a, b) -> (paramEncode a, paramEncode b)) allParams
  in BS.intercalate "&" $ map paramEncode [bsMtd, bsURI, bsParams]

sign1 :: KM.KeyMap Value -> IO [(K.Key, Value)]
sign1 o = do
  let url = BS.unpack (fst (BS.break (== '#') (str o "url")))
      body = str o "body"
      ct = str o "content_type"
      oa = newOAuth { oauthSignatureMethod = HMACSHA1
                    , oauthConsumerKey = str o "consumer_key"
                    , oauthConsumerSecret = str o "consumer_secret" }
      cred = if BS.null (str o "token") then emptyCredential
             else newCredential (str o "token") (str o "token_secret")
  req0 <- parseRequest url
  let req = req0 { method = str o "method"
                 , requestBody = RequestBodyBS body
                 , requestHeaders = [("Content-Type", ct) | not (BS.null ct)] }
  signed <- signOAuth oa cred req
  let h = fromMaybe "" (lookup "Authorization" (requestHeaders signed))
      ps = headerParams h
      got = baseString signed body ps
  _ <- evaluate (BS.length got)
  return [ "got" .= TE.decodeLatin1 got
         , "authorization" .= TE.decodeLatin1 h
         , "url" .= show (getUri signed)
         , "nonce" .= TE.decodeLatin1 (fromMaybe "" (lookup "oauth_nonce" ps))
         , "timestamp" .= TE.decodeLatin1 (fromMaybe "" (lookup "oauth_timestamp" ps)) ]

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  ls <- BS.lines <$> BS.getContents
  forM_ ls $ \l -> do
    let Just (Object o) = decodeStrict l
        Just i = KM.lookup "id" o
    r <- try (sign1 o) :: IO (Either SomeException [(K.Key, Value)])
    let fields = case r of
          Right fs -> fs
          Left e -> ["error" .= show e]
    BSL.putStrLn (encode (object (("id" .= i) : [ k .= v | (k, v) <- fields ])))
