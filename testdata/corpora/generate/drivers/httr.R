# Signs each request of stdin (JSON lines) with R's httr (Debian
# r-cran-httr), as its documentation shows: sign_oauth1.0(app, token,
# token_secret) with an oauth_app of the consumer's credentials gives a
# request whose token signs the method and URL when httr performs it
# (req$auth_token$sign(method, url), which httr's request_perform calls;
# the driver calls it the same way without sending anything). httr signs
# the URL only: a form body goes as it is, unsigned. It chooses its nonce
# and timestamp.
#
# The base string is what its oauth_signature hands to httr's sha1_hash,
# recorded by a trace() on that function in httr's namespace.
suppressPackageStartupMessages({
  library(httr)
  library(jsonlite)
})

hashed <- NULL
invisible(suppressMessages(trace("sha1_hash", where = asNamespace("httr"), print = FALSE,
                tracer = quote(hashed <<- string))))

con <- file("stdin")
open(con)
while (length(line <- readLines(con, n = 1, encoding = "UTF-8")) > 0) {
  r <- fromJSON(line)
  out <- list(id = r$id)
  hashed <- NULL
  res <- tryCatch({
    url <- strsplit(r$url, "#", fixed = TRUE)[[1]][1]
    app <- oauth_app("generate", key = r$consumer_key, secret = r$consumer_secret)
    req <- if (r$token == "") sign_oauth1.0(app) else sign_oauth1.0(app, r$token, r$token_secret)
    signed <- req$auth_token$sign(r$method, url)
    if (is.null(hashed)) stop("nothing hashed")
    list(got = hashed, authorization = signed$headers[["Authorization"]])
  }, error = function(e) list(error = conditionMessage(e)))
  cat(toJSON(c(out, res), auto_unbox = TRUE), "\n", sep = "")
}
