# Signs each request of stdin (JSON lines) with R's httr (Debian
# r-cran-httr) as its OAuth 1.0 token does before each request:
# oauth_header(oauth_signature(url, method, app, token, token_secret)),
# the URL as given (httr signs its query and never a body). Writes the
# base string it hashed (recorded by a wrapper of its sha1_hash) and that
# header, as JSON lines. Collation is C.UTF-8's, as on this machine: httr
# sorts the parameters with R's order(), which follows the locale.
suppressMessages({
  library(httr)
  library(jsonlite)
})
invisible(Sys.setlocale("LC_COLLATE", "C.UTF-8"))

hashed <- character(0)
sha1 <- httr:::sha1_hash
assignInNamespace("sha1_hash", function(key, string, method = "HMAC-SHA1") {
  hashed <<- c(hashed, paste(string, collapse = "\n"))
  sha1(key, string, method)
}, "httr")
the_nonce <- ""
assignInNamespace("nonce", function(length = 10) the_nonce, "httr")

version <- sprintf("%s (Debian %s)", as.character(packageVersion("httr")),
  tryCatch(system2("dpkg-query", c("-W", shQuote("-f=${Version}"), "r-cran-httr"), stdout = TRUE), error = function(e) "?"))

con <- file("stdin", open = "r")
while (length(line <- readLines(con, n = 1, encoding = "UTF-8")) > 0) {
  r <- fromJSON(line)
  out <- list(id = r$id, version = version)
  hashed <- character(0)
  the_nonce <- r$nonce
  res <- tryCatch({
    app <- oauth_app("corpus", key = r$consumer_key, secret = r$consumer_secret)
    token <- if (r$token == "") NULL else r$token
    secret <- if (r$token == "") NULL else r$token_secret
    sig <- oauth_signature(strsplit(r$url, "#", fixed = TRUE)[[1]][1], r$method, app, token, secret)
    if (length(hashed) != 1) stop(sprintf("%d messages hashed", length(hashed)))
    list(got = hashed[[1]], authorization = oauth_header(sig)$headers[["Authorization"]])
  }, error = function(e) list(error = conditionMessage(e)))
  cat(toJSON(c(out, res), auto_unbox = TRUE), "\n", sep = "")
}
