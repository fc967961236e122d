package sqlstore

// MigrateTo migrates db up to version upTo, for the upgrade test.
var MigrateTo = migrateTo
