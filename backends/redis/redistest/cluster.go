package redistest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of redis-server processes on loopback ports, created with
// redis-cli --cluster create. A node's failure is detected after one second.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts masters × (1 + replicas) nodes, each in a folder of its own under
// dir, joins them into a Cluster with the slots spread evenly over the masters, and
// returns once every node sees all 16384 slots served and every replica is in sync.
// args are extra configuration arguments for every node.
func StartCluster(dir string, masters, replicas int, args ...string) (*Cluster, error) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, fmt.Errorf("redis-cli not found on PATH (apt-get install -y redis-tools)")
	}
	c := &Cluster{}
	for i := range masters * (1 + replicas) {
		nodeDir := filepath.Join(dir, "node"+strconv.Itoa(i))
		if err := os.MkdirAll(nodeDir, 0o755); err != nil {
			c.Stop()
			return nil, err
		}
		bus, err := FreePort()
		if err != nil {
			c.Stop()
			return nil, err
		}
		nodeArgs := append([]string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "1000", "--cluster-port", strconv.Itoa(bus),
			"--cluster-require-full-coverage", "no"}, args...)
		s, err := Start(nodeDir, nodeArgs...)
		if err != nil {
			c.Stop()
			return nil, err
		}
		c.Nodes = append(c.Nodes, s)
	}
	create := append([]string{"--cluster", "create"}, c.Addrs()...)
	create = append(create, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command(cli, create...).CombinedOutput(); err != nil {
		c.Stop()
		return nil, fmt.Errorf("redis-cli --cluster create: %v: %s", err, lastLines(string(out), 5))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.WaitHealthy(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// Addrs lists the addresses of all nodes, running or not.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Addr()
	}
	return out
}

// Stop stops every node.
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		n.Stop()
	}
}

// WaitHealthy waits until every running node reports cluster_state:ok with all slots
// served and every running replica's link to its master is up.
func (c *Cluster) WaitHealthy(ctx context.Context) error {
	var last string
	for {
		last = c.unhealthy(ctx)
		if last == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not healthy: %s", last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// unhealthy returns why the cluster is not healthy yet, or "".
func (c *Cluster) unhealthy(ctx context.Context) string {
	for _, n := range c.Nodes {
		if n.PID() == 0 {
			continue
		}
		info, err := nodeCommand(ctx, n, "CLUSTER", "INFO")
		if err != nil {
			return err.Error()
		}
		if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_ok:16384") {
			return n.Addr() + " sees the cluster not ok"
		}
		repl, err := nodeCommand(ctx, n, "INFO", "replication")
		if err != nil {
			return err.Error()
		}
		if strings.Contains(repl, "role:slave") && !strings.Contains(repl, "master_link_status:up") {
			return n.Addr() + " is a replica out of sync"
		}
	}
	return ""
}

// MasterFor returns the node that currently serves key as master, as the nodes see it.
func (c *Cluster) MasterFor(ctx context.Context, key string) (*Server, error) {
	for _, n := range c.Nodes {
		if n.PID() == 0 {
			continue
		}
		cl := redis.NewClient(&redis.Options{Addr: n.Addr(), MaxRetries: -1})
		slot, err := cl.ClusterKeySlot(ctx, key).Result()
		if err != nil {
			cl.Close()
			continue
		}
		shards, err := cl.ClusterShards(ctx).Result()
		cl.Close()
		if err != nil {
			continue
		}
		for _, sh := range shards {
			for _, r := range sh.Slots {
				if slot < r.Start || slot > r.End {
					continue
				}
				for _, nd := range sh.Nodes {
					if nd.Role == "master" && nd.Health == "online" {
						return c.byAddr(nd.IP + ":" + strconv.FormatInt(nd.Port, 10))
					}
				}
			}
		}
	}
	return nil, fmt.Errorf("no node serves %q", key)
}

// ReplicaOf returns a running replica of master.
func (c *Cluster) ReplicaOf(ctx context.Context, master *Server) (*Server, error) {
	for _, n := range c.Nodes {
		if n == master || n.PID() == 0 {
			continue
		}
		repl, err := nodeCommand(ctx, n, "INFO", "replication")
		if err == nil && strings.Contains(repl, "master_port:"+strconv.Itoa(master.Port())+"\r\n") {
			return n, nil
		}
	}
	return nil, fmt.Errorf("no replica of %s", master.Addr())
}

func (c *Cluster) byAddr(addr string) (*Server, error) {
	for _, n := range c.Nodes {
		if n.Addr() == addr {
			return n, nil
		}
	}
	return nil, fmt.Errorf("no node at %s", addr)
}

// nodeCommand runs one command on one node and returns its reply as text.
func nodeCommand(ctx context.Context, n *Server, args ...any) (string, error) {
	cl := redis.NewClient(&redis.Options{Addr: n.Addr(), MaxRetries: -1, DialTimeout: 500 * time.Millisecond})
	defer cl.Close()
	return cl.Do(ctx, args...).Text()
}

// Do runs one command on node n of the cluster (not redirected) and returns its reply.
func (c *Cluster) Do(ctx context.Context, n *Server, args ...any) (any, error) {
	cl := redis.NewClient(&redis.Options{Addr: n.Addr(), MaxRetries: -1, DialTimeout: 500 * time.Millisecond})
	defer cl.Close()
	return cl.Do(ctx, args...).Result()
}
