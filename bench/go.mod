module github.com/countersign/countersign/bench

go 1.26.0

require (
	github.com/countersign/countersign v0.0.0-00010101000000-000000000000
	github.com/dghubble/oauth1 v0.7.3
	github.com/mrjones/oauth v0.0.0-20190623134757-126b35219450
)

require (
	golang.org/x/net v0.63.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/countersign/countersign => ../
