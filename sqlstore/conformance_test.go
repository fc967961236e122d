package sqlstore_test

import (
	"crypto/rand"
	"database/sql"
	"testing"

	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

func TestNonceStoreConformance(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		oauth1test.TestNonceStore(t, func() server.NonceStore { return sqlstore.NewNonceStore(db, rand.Text()) })
	})
}

func TestTemporaryStoreConformance(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		oauth1test.TestTemporaryStore(t, func() server.TemporaryStore { return sqlstore.NewTemporaryStore(db, rand.Text()) })
	})
}

func TestTokenStoreConformance(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		oauth1test.TestTokenStore(t, func() server.TokenStore { return sqlstore.NewTokenStore(db, rand.Text()) })
	})
}

func TestConsumerStoreConformance(t *testing.T) {
	for _, sealed := range []bool{false, true} {
		name := "Plain"
		var key []byte
		if sealed {
			name, key = "Sealed", make([]byte, 32)
			rand.Read(key)
		}
		t.Run(name, func(t *testing.T) {
			dialects(t, func(t *testing.T, db *sql.DB) {
				oauth1test.TestConsumerStore(t, func(t *testing.T, consumers map[string]server.Registration) server.ConsumerStore {
					s, err := sqlstore.NewConsumerStore(db, rand.Text(), key)
					if err != nil {
						t.Fatal(err)
					}
					for k, r := range consumers {
						if err := s.PutConsumer(t.Context(), k, r); err != nil {
							t.Fatal(err)
						}
					}
					return s
				})
			})
		})
	}
}
