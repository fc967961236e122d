module github.com/countersign/countersign/testdata/corpora/generate

go 1.26.0

replace github.com/countersign/countersign => ../../..

require (
	github.com/countersign/countersign v1.0.0
	github.com/dghubble/oauth1 v0.7.3
	github.com/gomodule/oauth1 v0.2.0
	github.com/kurrik/oauth1a v0.1.1
	github.com/michimani/gotwi v0.18.3
	github.com/mrjones/oauth v0.0.0-20190623134757-126b35219450
)

require github.com/mastercard/oauth1-signer-go v1.2.3
