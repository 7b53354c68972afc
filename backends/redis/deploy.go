package redisbackend

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// New returns a Backend on client after checking that the deployment behind it can keep
// the Backend's guarantees; it refuses, with an error that says what to do instead:
//
//   - a redis.Ring, which spreads keys over servers that no script can span, and moves keys
//     between them when one fails;
//   - a single-node client connected to a Cluster node (use redis.NewClusterClient);
//   - a Cluster client that reads from replicas (ReadOnly, RouteByLatency, RouteRandomly),
//     whose reads may miss the latest write;
//   - on a Cluster, a prefix with an empty hash tag "{}", which would split a folder's keys
//     over slots;
//   - any server (every node of a Cluster) whose maxmemory-policy is not noeviction, unless
//     AcceptPlanLossOnEviction is given;
//   - WithReplicaAcks on a client other than a single-node or Cluster client.
//
// The check reads INFO from every node once; later configuration changes are not seen.
// The client's own settings decide timeouts and retries; set ContextTimeoutEnabled on it so
// a context deadline also cuts a call already in flight.
func New(ctx context.Context, client redis.UniversalClient, opts ...Option) (*Backend, error) {
	if client == nil {
		return nil, errors.New("redis backend: client is nil")
	}
	b := &Backend{client: client, prefix: DefaultPrefix}
	for _, o := range opts {
		o(b)
	}
	if b.replicas < 0 || (b.replicas > 0 && b.waitTimeout <= 0) {
		return nil, fmt.Errorf("redis backend: WithReplicaAcks(%d, %v): want n >= 0 and a positive timeout", b.replicas, b.waitTimeout)
	}
	var nodes []nodeInfo
	var err error
	switch c := client.(type) {
	case *redis.Ring:
		return nil, errors.New("redis backend: a redis.Ring is not supported: it hashes keys over servers on the client, " +
			"so one plan folder's keys (file, index, memo) can land on servers no script spans, and it moves keys when a " +
			"server drops out; use redis.NewClient (one server or Sentinel) or redis.NewClusterClient")
	case *redis.ClusterClient:
		o := c.Options()
		if o.ReadOnly || o.RouteByLatency || o.RouteRandomly {
			return nil, errors.New("redis backend: the Cluster client reads from replicas (ReadOnly, RouteByLatency or " +
				"RouteRandomly), which can miss the latest write; turn those options off")
		}
		if emptyTag(b.prefix) {
			return nil, fmt.Errorf("redis backend: prefix %q holds an empty hash tag \"{}\", which would spread one plan "+
				"folder's keys over Cluster slots; remove the braces, or name a tag such as \"{plan}:\"", b.prefix)
		}
		b.cluster = c
		nodes, err = clusterInfo(ctx, c)
	case *redis.Client:
		nodes, err = singleInfo(ctx, c)
	default:
		if b.replicas > 0 {
			return nil, fmt.Errorf("redis backend: WithReplicaAcks needs a *redis.Client or *redis.ClusterClient, not %T", client)
		}
		nodes, err = singleInfo(ctx, client)
	}
	if err != nil {
		return nil, err
	}
	if err := b.checkNodes(nodes); err != nil {
		return nil, err
	}
	return b, nil
}

// emptyTag reports whether the first "{" of prefix is directly followed by "}": Redis then
// hashes whole keys and ignores the tag the Backend adds after the prefix.
func emptyTag(prefix string) bool {
	i := strings.IndexByte(prefix, '{')
	return i >= 0 && i+1 < len(prefix) && prefix[i+1] == '}'
}

// nodeInfo is what New needs from one server's INFO.
type nodeInfo struct {
	addr           string
	version        int // major version
	policy         string
	clusterEnabled bool
}

func singleInfo(ctx context.Context, c redis.UniversalClient) ([]nodeInfo, error) {
	text, err := c.Info(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("redis backend: INFO: %w (New reads the server's version and maxmemory-policy)", err)
	}
	addr := ""
	if cl, ok := c.(*redis.Client); ok {
		addr = cl.Options().Addr
	}
	return []nodeInfo{parseInfo(addr, text)}, nil
}

func clusterInfo(ctx context.Context, c *redis.ClusterClient) ([]nodeInfo, error) {
	var mu sync.Mutex
	var nodes []nodeInfo
	err := c.ForEachShard(ctx, func(ctx context.Context, shard *redis.Client) error {
		text, err := shard.Info(ctx).Result()
		if err != nil {
			return fmt.Errorf("redis backend: INFO on %s: %w (New reads every node's version and maxmemory-policy)", shard.Options().Addr, err)
		}
		mu.Lock()
		nodes = append(nodes, parseInfo(shard.Options().Addr, text))
		mu.Unlock()
		return nil
	})
	return nodes, err
}

func parseInfo(addr, text string) nodeInfo {
	n := nodeInfo{addr: addr}
	for line := range strings.Lines(text) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch k {
		case "redis_version":
			major, _, _ := strings.Cut(v, ".")
			n.version, _ = strconv.Atoi(major)
		case "maxmemory_policy":
			n.policy = v
		case "cluster_enabled":
			n.clusterEnabled = v == "1"
		}
	}
	return n
}

// checkNodes applies New's rules to every node and picks the publish command: sharded
// pub/sub when every node has it (Redis 7), plain pub/sub otherwise.
func (b *Backend) checkNodes(nodes []nodeInfo) error {
	b.sharded = true
	for _, n := range nodes {
		at := ""
		if n.addr != "" {
			at = " at " + n.addr
		}
		if n.clusterEnabled && b.cluster == nil {
			return fmt.Errorf("redis backend: the server%s is a Redis Cluster node; connect with redis.NewClusterClient", at)
		}
		if n.version != 0 && n.version < 5 {
			return fmt.Errorf("redis backend: the server%s runs Redis %d; Redis 5 or later is needed", at, n.version)
		}
		if n.policy != "noeviction" && !b.allowEviction {
			return fmt.Errorf("redis backend: the server%s has maxmemory-policy %q, which can evict plans when memory is full; "+
				"set maxmemory-policy noeviction (a full server then refuses writes instead of dropping data), "+
				"or pass AcceptPlanLossOnEviction() to run with that risk", at, n.policy)
		}
		if n.version < 7 {
			b.sharded = false
		}
	}
	return nil
}
