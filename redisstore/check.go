package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Check reports whether the Redis behind client keeps what the stores
// write until it expires: an error unless every node it reaches (every
// shard, replicas included, of a Cluster or a Ring) has no maxmemory, or
// the maxmemory-policy noeviction. Any other policy evicts keys with a
// TTL, nonces first among them, when Redis is full, and a replay evicted
// from memory is accepted again. Check is meant for start-up, or a health
// check; the stores do not call it.
//
// A Redis that refuses CONFIG GET (as some managed services do) is an
// error too: check its policy by other means.
func Check(ctx context.Context, client redis.UniversalClient) error {
	check := func(ctx context.Context, c *redis.Client) error {
		err := checkNode(ctx, c)
		if err != nil {
			return fmt.Errorf("redisstore: %s: %w", c.Options().Addr, err)
		}
		return nil
	}
	switch c := client.(type) {
	case *redis.ClusterClient:
		return c.ForEachShard(ctx, check)
	case *redis.Ring:
		return c.ForEachShard(ctx, check)
	case *redis.Client:
		return check(ctx, c)
	}
	return checkNode(ctx, client)
}

// checkNode checks one node.
func checkNode(ctx context.Context, c redis.Cmdable) error {
	cfg, err := c.ConfigGet(ctx, "maxmemory*").Result()
	if err != nil {
		return fmt.Errorf("reading maxmemory and maxmemory-policy: %w", err)
	}
	mem, policy := cfg["maxmemory"], cfg["maxmemory-policy"]
	n, err := strconv.ParseUint(mem, 10, 64)
	switch {
	case err != nil || policy == "":
		return errors.New("reading maxmemory and maxmemory-policy: unexpected reply")
	case n != 0 && policy != "noeviction":
		return fmt.Errorf("maxmemory %d with maxmemory-policy %s evicts nonces when Redis is full, and replays are accepted again: "+
			"set maxmemory-policy noeviction, or keep nonces in a Redis of their own that has it", n, policy)
	}
	return nil
}
