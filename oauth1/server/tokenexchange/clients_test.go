package tokenexchange

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
)

func TestClients(t *testing.T) {
	c := Clients{"app": {ID: "app", Secret: "s-SECRET", ConsumerKey: "ck"}}
	ctx := context.Background()
	got, err := c.Client(ctx, "app")
	require.NoError(t, err)
	require.Equal(t, Client{ID: "app", Secret: "s-SECRET", ConsumerKey: "ck"}, got)
	for _, id := range []string{"nobody", "", "APP"} {
		_, err = c.Client(ctx, id)
		require.ErrorIs(t, err, server.ErrNotFound, id)
		require.NotContains(t, err.Error(), "s-SECRET")
	}
	_, err = Clients(nil).Client(ctx, "app")
	require.ErrorIs(t, err, server.ErrNotFound, "a nil map knows no client")

	// A Handler with Clients authenticates as with any ClientStore.
	f := newFixture(t)
	f.h.Clients = Clients{clientID: {ID: clientID, Secret: clientSecret, ConsumerKey: consumerKey}}
	wantToken(t, serve(t, f.h, post(secretForm(), clientID, clientSecret)), "at-1", "read write")
	a := serve(t, f.h, post(secretForm(), otherID, otherSecret))
	require.Equal(t, 401, a.status)
	require.Equal(t, "invalid_client", a.fields["error"])
}
