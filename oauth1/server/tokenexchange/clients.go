package tokenexchange

import (
	"context"
	"fmt"

	"github.com/countersign/countersign/oauth1/server"
)

// Clients is a [ClientStore] of a fixed set of OAuth 2.0 clients, each
// under its client ID, as [server.Consumers] is of 1.0a clients. It is
// safe for concurrent use as long as it is not modified.
type Clients map[string]Client

var _ ClientStore = Clients(nil)

// Client returns the client registered under clientID, or an error
// wrapping [server.ErrNotFound].
func (c Clients) Client(_ context.Context, clientID string) (Client, error) {
	cl, ok := c[clientID]
	if !ok {
		return Client{}, fmt.Errorf("%w: client %q", server.ErrNotFound, clientID)
	}
	return cl, nil
}
