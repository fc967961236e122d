module github.com/countersign/countersign/bench

go 1.26.0

require github.com/countersign/countersign v0.0.0-00010101000000-000000000000

replace github.com/countersign/countersign => ../
