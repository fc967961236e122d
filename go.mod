module github.com/countersign/countersign

go 1.24
