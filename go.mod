module github.com/countersign/countersign

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	golang.org/x/crypto v0.59.0
	golang.org/x/net v0.63.0
	golang.org/x/oauth2 v0.38.0
	software.sslmate.com/src/go-pkcs12 v0.7.4
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
