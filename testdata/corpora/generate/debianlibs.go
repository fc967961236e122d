package main

// The client libraries installed from Debian's packages, in languages other
// than Go, JavaScript and Python. Each runs as a driver in drivers/ (see
// the comment at its top) and reports its package's version as dpkg has it.
// They are registered here, apart from main.go's table; their entries go
// to ../more-corpb.json.gz:
//
//	go run . -libs horde-oauth,... -o ../more-corpb.json.gz
var debianDrivers = map[string]driver{
	"horde-oauth": external("php", "drivers/horde-oauth.php"),
}

func init() {
	for name, d := range debianDrivers {
		if drivers[name] != nil {
			panic("two drivers named " + name)
		}
		drivers[name] = d
	}
}
