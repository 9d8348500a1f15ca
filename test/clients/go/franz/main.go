// The franz-go family of the client matrix (test/clients/README.md): kgo for producing,
// consuming, groups and transactions, kadm for everything administrative.
//
//	franz-client <scenario> <bootstrap>
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"tkafka.test/clients/go/internal/mx"
)

const family = "franz-go"

var (
	bootstrap string
	scenario  string
)

func main() {
	scenario, bootstrap = mx.Args()
	if scenario == "version" {
		fmt.Printf("franz-go %s (kadm %s)\n",
			mx.ModuleVersion("github.com/twmb/franz-go"), mx.ModuleVersion("github.com/twmb/franz-go/pkg/kadm"))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), mx.Budget)
	defer cancel()
	run := map[string]func(context.Context){
		"metadata-named":     metadataNamed,
		"metadata-all":       metadataAll,
		"admin-topics":       adminTopics,
		"admin-configs":      adminConfigs,
		"produce-consume":    produceConsume,
		"idempotent":         idempotent,
		"group-classic":      func(ctx context.Context) { groupScenario(ctx, false) },
		"group-consumer":     func(ctx context.Context) { groupScenario(ctx, true) },
		"transactions":       transactions,
		"list-offsets-time":  listOffsetsTime,
		"delete-records":     deleteRecords,
		"sasl-plain":         security,
		"sasl-scram-256":     security,
		"sasl-scram-512":     security,
		"sasl-ssl-scram-512": security,
		"ssl-mtls":           security,
		"sasl-oauthbearer":   security,
	}[scenario]
	if run == nil {
		mx.Fail("unknown scenario %q", scenario)
	}
	run(ctx)
}

func name() string { return mx.Name(family, scenario) }

func client(opts ...kgo.Opt) *kgo.Client {
	all := append([]kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.ClientID("m-" + family)},
		securityOpts(os.Getenv("TKAFKA_MATRIX_SASL_PASSWORD"), true, false)...)
	all = append(all, opts...)
	cl, err := kgo.NewClient(all...)
	mx.Check(err, "new client")
	return cl
}

func admin() (*kadm.Client, *kgo.Client) {
	cl := client()
	return kadm.NewClient(cl), cl
}

func createTopic(ctx context.Context, adm *kadm.Client, topic string, partitions int32, configs map[string]*string) {
	resp, err := adm.CreateTopic(ctx, partitions, 1, configs, topic)
	mx.Check(err, "create topic "+topic)
	mx.Check(resp.Err, "create topic "+topic)
	// The topic's leaders are known to Metadata before a producer or consumer relies on them.
	err = mx.Until(ctx, 15*time.Second, "leaders of "+topic, func() (bool, error) {
		md, err := adm.Metadata(ctx, topic)
		if err != nil {
			return false, err
		}
		td, ok := md.Topics[topic]
		if !ok || td.Err != nil || len(td.Partitions) != int(partitions) {
			return false, fmt.Errorf("metadata: %v", td.Err)
		}
		for _, p := range td.Partitions {
			if p.Leader < 0 || p.Err != nil {
				return false, fmt.Errorf("partition %d leader %d: %v", p.Partition, p.Leader, p.Err)
			}
		}
		return true, nil
	})
	mx.Check(err, "create topic")
}

func metadataNamed(ctx context.Context) {
	adm, cl := admin()
	defer cl.Close()
	topic := name()
	createTopic(ctx, adm, topic, 3, nil)
	md, err := adm.Metadata(ctx, topic)
	mx.Check(err, "metadata")
	brokers := map[int32]bool{}
	for _, b := range md.Brokers {
		brokers[b.NodeID] = true
	}
	if len(md.Topics) != 1 {
		mx.Fail("metadata for one topic answered %d topics", len(md.Topics))
	}
	td := md.Topics[topic]
	mx.Check(td.Err, "topic error")
	if len(td.Partitions) != 3 {
		mx.Fail("want 3 partitions, got %d", len(td.Partitions))
	}
	for i := int32(0); i < 3; i++ {
		p, ok := td.Partitions[i]
		if !ok {
			mx.Fail("partition %d missing", i)
		}
		if !brokers[p.Leader] {
			mx.Fail("partition %d leader %d is not a listed broker (%v)", i, p.Leader, md.Brokers)
		}
		if len(p.Replicas) != 1 || len(p.ISR) != 1 {
			mx.Fail("partition %d replicas %v isr %v", i, p.Replicas, p.ISR)
		}
	}
	if td.ID == (kadm.TopicID{}) {
		mx.Fail("topic id is zero")
	}
}

func metadataAll(ctx context.Context) {
	adm, cl := admin()
	defer cl.Close()
	topic := name()
	createTopic(ctx, adm, topic, 1, nil)
	topics, err := adm.ListTopics(ctx)
	mx.Check(err, "list topics")
	td, ok := topics[topic]
	if !ok {
		mx.Fail("topic %s not listed among %d topics", topic, len(topics))
	}
	if len(td.Partitions) != 1 {
		mx.Fail("want 1 partition, got %d", len(td.Partitions))
	}
	for t := range topics {
		if strings.HasPrefix(t, "__") {
			mx.Fail("ListTopics listed internal topic %s", t)
		}
	}
}

func topicConfig(ctx context.Context, adm *kadm.Client, topic, key string) kadm.Config {
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	mx.Check(err, "describe configs")
	rc, err := rcs.On(topic, nil)
	mx.Check(err, "describe configs of "+topic)
	mx.Check(rc.Err, "describe configs of "+topic)
	for _, c := range rc.Configs {
		if c.Key == key {
			return c
		}
	}
	mx.Fail("config %s not described (%d configs)", key, len(rc.Configs))
	return kadm.Config{}
}

func adminTopics(ctx context.Context) {
	adm, cl := admin()
	defer cl.Close()
	topic := name()
	compact := "compact"
	createTopic(ctx, adm, topic, 2, map[string]*string{"cleanup.policy": &compact})
	tds, err := adm.ListTopics(ctx, topic)
	mx.Check(err, "describe topic")
	if n := len(tds[topic].Partitions); n != 2 {
		mx.Fail("want 2 partitions, got %d", n)
	}
	c := topicConfig(ctx, adm, topic, "cleanup.policy")
	if c.MaybeValue() != "compact" || c.Source.String() != "DYNAMIC_TOPIC_CONFIG" {
		mx.Fail("cleanup.policy = %q (%s), want compact (DYNAMIC_TOPIC_CONFIG)", c.MaybeValue(), c.Source)
	}
	dr, err := adm.DeleteTopic(ctx, topic)
	mx.Check(err, "delete topic")
	mx.Check(dr.Err, "delete topic")
	err = mx.Until(ctx, 20*time.Second, "topic gone", func() (bool, error) {
		md, err := adm.Metadata(ctx, topic)
		if err != nil {
			return false, err
		}
		td, ok := md.Topics[topic]
		if ok && errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
			return true, nil
		}
		return false, fmt.Errorf("metadata still answers %d partitions, err %v", len(td.Partitions), td.Err)
	})
	mx.Check(err, "after delete")
	all, err := adm.ListTopics(ctx)
	mx.Check(err, "list topics")
	if all.Has(topic) {
		mx.Fail("deleted topic still listed")
	}
}

func adminConfigs(ctx context.Context) {
	adm, cl := admin()
	defer cl.Close()
	topic := name()
	createTopic(ctx, adm, topic, 1, nil)
	c := topicConfig(ctx, adm, topic, "retention.ms")
	if c.MaybeValue() != "604800000" || c.Source.String() != "DEFAULT_CONFIG" {
		mx.Fail("retention.ms = %q (%s), want 604800000 (DEFAULT_CONFIG)", c.MaybeValue(), c.Source)
	}
	v := "3600000"
	resps, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: &v}}, topic)
	mx.Check(err, "alter configs")
	r, err := resps.On(topic, nil)
	mx.Check(err, "alter configs of "+topic)
	mx.Check(r.Err, "alter configs of "+topic)
	// Kafka's brokers apply a config change when they replay it from the metadata log: the
	// describe that follows may still answer the old value for a moment.
	err = mx.Until(ctx, 10*time.Second, "altered config", func() (bool, error) {
		c = topicConfig(ctx, adm, topic, "retention.ms")
		if c.MaybeValue() != v || c.Source.String() != "DYNAMIC_TOPIC_CONFIG" {
			return false, fmt.Errorf("after alter retention.ms = %q (%s), want %s (DYNAMIC_TOPIC_CONFIG)",
				c.MaybeValue(), c.Source, v)
		}
		return true, nil
	})
	mx.Check(err, "admin-configs")
	c = topicConfig(ctx, adm, topic, "cleanup.policy")
	if c.MaybeValue() != "delete" {
		mx.Fail("an incremental alter changed cleanup.policy to %q", c.MaybeValue())
	}
}

// consumeN reads n records from the start of the given partitions with a new client.
func consumeN(ctx context.Context, n int, parts map[string]map[int32]kgo.Offset, opts ...kgo.Opt) []*kgo.Record {
	cl := client(append([]kgo.Opt{kgo.ConsumePartitions(parts)}, opts...)...)
	defer cl.Close()
	var recs []*kgo.Record
	for i := 0; i < 1000 && len(recs) < n; i++ {
		if ctx.Err() != nil {
			mx.Fail("consumed %d of %d records before the deadline", len(recs), n)
		}
		fs := cl.PollFetches(ctx)
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				mx.Fail("fetch %s[%d]: %v", t, p, err)
			}
		})
		recs = append(recs, fs.Records()...)
	}
	if len(recs) != n {
		mx.Fail("consumed %d records, want %d", len(recs), n)
	}
	return recs
}

func fromStart(topic string, partitions int32) map[string]map[int32]kgo.Offset {
	ps := map[int32]kgo.Offset{}
	for p := int32(0); p < partitions; p++ {
		ps[p] = kgo.NewOffset().AtStart()
	}
	return map[string]map[int32]kgo.Offset{topic: ps}
}

func produceConsume(ctx context.Context) {
	adm, acl := admin()
	defer acl.Close()
	codecs := []struct {
		name  string
		codec kgo.CompressionCodec
		attr  uint8
	}{
		{"none", kgo.NoCompression(), 0},
		{"gzip", kgo.GzipCompression(), 1},
		{"snappy", kgo.SnappyCompression(), 2},
		{"lz4", kgo.Lz4Compression(), 3},
		{"zstd", kgo.ZstdCompression(), 4},
	}
	base := time.Now().Add(-time.Hour).UnixMilli()
	for _, c := range codecs {
		topic := name() + "-" + c.name
		createTopic(ctx, adm, topic, 1, nil)
		p := client(kgo.ProducerBatchCompression(c.codec), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(50*time.Millisecond))
		var wg sync.WaitGroup
		var perr error
		var mu sync.Mutex
		for i := 0; i < 100; i++ {
			r := &kgo.Record{
				Key:       []byte(fmt.Sprintf("key-%d", i)),
				Value:     mx.Value(i),
				Timestamp: time.UnixMilli(base + int64(i)*10),
				Headers: []kgo.RecordHeader{
					{Key: "h1", Value: []byte(fmt.Sprintf("one-%d", i))},
					{Key: "h2", Value: []byte(fmt.Sprintf("two-%d", i))},
				},
			}
			wg.Add(1)
			p.Produce(ctx, r, func(_ *kgo.Record, err error) {
				defer wg.Done()
				if err != nil {
					mu.Lock()
					perr = err
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		p.Close()
		mx.Check(perr, c.name+": produce")
		recs := consumeN(ctx, 100, fromStart(topic, 1))
		for i, r := range recs {
			what := fmt.Sprintf("%s: record %d", c.name, i)
			if r.Offset != int64(i) {
				mx.Fail("%s: offset %d", what, r.Offset)
			}
			if string(r.Key) != fmt.Sprintf("key-%d", i) || !bytes.Equal(r.Value, mx.Value(i)) {
				mx.Fail("%s: key %q value %q", what, r.Key, r.Value)
			}
			if r.Timestamp.UnixMilli() != base+int64(i)*10 || r.Attrs.TimestampType() != 0 {
				mx.Fail("%s: timestamp %d type %d, want %d CreateTime", what,
					r.Timestamp.UnixMilli(), r.Attrs.TimestampType(), base+int64(i)*10)
			}
			h := r.Headers
			if len(h) != 2 || h[0].Key != "h1" || string(h[0].Value) != fmt.Sprintf("one-%d", i) ||
				h[1].Key != "h2" || string(h[1].Value) != fmt.Sprintf("two-%d", i) {
				mx.Fail("%s: headers %v", what, h)
			}
			if r.Attrs.CompressionType() != c.attr {
				mx.Fail("%s: stored with codec %d, want %d", what, r.Attrs.CompressionType(), c.attr)
			}
		}
	}
}

func idempotent(ctx context.Context) {
	adm, acl := admin()
	defer acl.Close()
	topic := name()
	createTopic(ctx, adm, topic, 1, nil)
	// Idempotence is franz-go's default (kgo.DisableIdempotentWrite turns it off); acks=all is
	// required by it and is the default too.
	p := client(kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	var recs []*kgo.Record
	for i := 0; i < 1000; i++ {
		recs = append(recs, &kgo.Record{Value: []byte(strconv.Itoa(i))})
	}
	res := p.ProduceSync(ctx, recs...)
	p.Close()
	mx.Check(res.FirstErr(), "produce")
	for _, r := range res {
		if r.Record.ProducerID < 0 || r.Record.ProducerEpoch < 0 {
			mx.Fail("record produced without a producer id (pid %d epoch %d)", r.Record.ProducerID, r.Record.ProducerEpoch)
		}
	}
	got := consumeN(ctx, 1000, fromStart(topic, 1))
	var pid int64 = -2
	for i, r := range got {
		if r.Offset != int64(i) || string(r.Value) != strconv.Itoa(i) {
			mx.Fail("record %d: offset %d value %q", i, r.Offset, r.Value)
		}
		if pid == -2 {
			pid = r.ProducerID
		}
		if r.ProducerID != pid || pid < 0 {
			mx.Fail("record %d: producer id %d (first %d)", i, r.ProducerID, pid)
		}
	}
	end, err := adm.ListEndOffsets(ctx, topic)
	mx.Check(err, "list end offsets")
	if o, _ := end.Lookup(topic, 0); o.Offset != 1000 {
		mx.Fail("end offset %d, want 1000 (duplicates?)", o.Offset)
	}
}

// member is one consumer of a group, polling in its own goroutine.
type member struct {
	cl       *kgo.Client
	mu       sync.Mutex
	assigned map[int32]bool
	recs     []*kgo.Record
	errs     []error
	done     chan struct{}
}

func newMember(group, topic string, extra ...kgo.Opt) *member {
	m := &member{assigned: map[int32]bool{}, done: make(chan struct{})}
	update := func(add bool) func(context.Context, *kgo.Client, map[string][]int32) {
		return func(_ context.Context, _ *kgo.Client, ps map[string][]int32) {
			m.mu.Lock()
			defer m.mu.Unlock()
			for _, p := range ps[topic] {
				if add {
					m.assigned[p] = true
				} else {
					delete(m.assigned, p)
				}
			}
		}
	}
	opts := []kgo.Opt{
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(update(true)),
		kgo.OnPartitionsRevoked(update(false)),
		kgo.OnPartitionsLost(update(false)),
	}
	m.cl = client(append(opts, extra...)...)
	return m
}

func (m *member) poll(ctx context.Context) {
	defer close(m.done)
	for i := 0; i < 100000 && ctx.Err() == nil; i++ {
		pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		fs := m.cl.PollFetches(pctx)
		cancel()
		if fs.IsClientClosed() {
			return
		}
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				m.mu.Lock()
				m.errs = append(m.errs, fmt.Errorf("fetch %s[%d]: %w", t, p, err))
				m.mu.Unlock()
			}
		})
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		m.mu.Lock()
		m.recs = append(m.recs, recs...)
		m.mu.Unlock()
		// A commit can fail while the group rebalances; the final commit below is the one checked.
		_ = m.cl.CommitRecords(ctx, recs...)
	}
}

func (m *member) snapshot() (map[int32]bool, int, []error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := map[int32]bool{}
	for p := range m.assigned {
		a[p] = true
	}
	return a, len(m.recs), append([]error(nil), m.errs...)
}

func produceSpread(ctx context.Context, topic string, partitions int32, perPartition int, tag string) {
	p := client(kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	defer p.Close()
	var recs []*kgo.Record
	for part := int32(0); part < partitions; part++ {
		for i := 0; i < perPartition; i++ {
			recs = append(recs, &kgo.Record{Partition: part, Value: []byte(fmt.Sprintf("%s-%d-%d", tag, part, i))})
		}
	}
	mx.Check(p.ProduceSync(ctx, recs...).FirstErr(), "produce")
}

func groupScenario(ctx context.Context, kip848 bool) {
	adm, acl := admin()
	defer acl.Close()
	topic := name()
	group := name()
	createTopic(ctx, adm, topic, 4, nil)
	var extra []kgo.Opt
	wantType := "classic"
	if kip848 {
		// franz-go speaks KIP-848 only when asked (ServerSideBalancer) and with a range or sticky
		// balancer; otherwise it quietly uses the classic protocol, which the type check catches.
		extra = []kgo.Opt{kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer())}
		wantType = "consumer"
	}
	m1 := newMember(group, topic, extra...)
	m2 := newMember(group, topic, extra...)
	go m1.poll(ctx)
	go m2.poll(ctx)

	var a1, a2 map[int32]bool
	err := mx.Until(ctx, 40*time.Second, "both members assigned", func() (bool, error) {
		var e1, e2 []error
		a1, _, e1 = m1.snapshot()
		a2, _, e2 = m2.snapshot()
		if len(e1)+len(e2) > 0 {
			mx.Fail("consume errors: %v %v", e1, e2)
		}
		if len(a1) == 0 || len(a2) == 0 || len(a1)+len(a2) != 4 {
			return false, fmt.Errorf("assignments %v and %v", mx.SortedKeys(a1), mx.SortedKeys(a2))
		}
		for p := range a1 {
			if a2[p] {
				return false, fmt.Errorf("partition %d assigned to both", p)
			}
		}
		return true, nil
	})
	mx.Check(err, "group")

	lg, err := adm.ListGroupsByType(ctx, []string{wantType})
	mx.Check(err, "list groups")
	if _, ok := lg[group]; !ok {
		mx.Fail("group %s is not listed as a %s group (%v)", group, wantType, lg.Groups())
	}
	if kip848 {
		dg, err := adm.DescribeConsumerGroups(ctx, group)
		mx.Check(err, "describe consumer group")
		d := dg[group]
		mx.Check(d.Err, "describe consumer group")
		if len(d.Members) != 2 {
			mx.Fail("ConsumerGroupDescribe lists %d members, want 2", len(d.Members))
		}
	}

	produceSpread(ctx, topic, 4, 10, "first")
	err = mx.Until(ctx, 30*time.Second, "consume 40 records", func() (bool, error) {
		_, n1, _ := m1.snapshot()
		_, n2, _ := m2.snapshot()
		return n1+n2 >= 40, fmt.Errorf("consumed %d + %d", n1, n2)
	})
	mx.Check(err, "group")
	seen := map[string]bool{}
	for i, m := range []*member{m1, m2} {
		a, _, errs := m.snapshot()
		if len(errs) > 0 {
			mx.Fail("member %d: %v", i+1, errs)
		}
		m.mu.Lock()
		for _, r := range m.recs {
			id := fmt.Sprintf("%d/%d", r.Partition, r.Offset)
			if seen[id] {
				mx.Fail("record %s delivered twice", id)
			}
			seen[id] = true
			if !a[r.Partition] {
				mx.Fail("member %d got a record of partition %d, assigned %v", i+1, r.Partition, mx.SortedKeys(a))
			}
		}
		m.mu.Unlock()
		mx.Check(m.cl.CommitUncommittedOffsets(ctx), fmt.Sprintf("member %d commit", i+1))
	}
	if len(seen) != 40 {
		mx.Fail("consumed %d distinct records, want 40", len(seen))
	}
	m1.cl.Close()
	m2.cl.Close()
	<-m1.done
	<-m2.done

	offs, err := adm.FetchOffsets(ctx, group)
	mx.Check(err, "fetch offsets")
	for p := int32(0); p < 4; p++ {
		o, ok := offs.Lookup(topic, p)
		if !ok || o.Err != nil || o.At != 10 {
			mx.Fail("committed offset of partition %d: %v %v, want 10", p, o.At, o.Err)
		}
	}

	produceSpread(ctx, topic, 4, 5, "second")
	m3 := newMember(group, topic, extra...)
	go m3.poll(ctx)
	err = mx.Until(ctx, 30*time.Second, "resume", func() (bool, error) {
		_, n, _ := m3.snapshot()
		return n >= 20, fmt.Errorf("new member consumed %d of 20", n)
	})
	mx.Check(err, "group")
	m3.mu.Lock()
	for _, r := range m3.recs {
		if r.Offset < 10 || !strings.HasPrefix(string(r.Value), "second-") {
			mx.Fail("new member re-consumed %d/%d %q", r.Partition, r.Offset, r.Value)
		}
	}
	n := len(m3.recs)
	m3.mu.Unlock()
	if n != 20 {
		mx.Fail("new member consumed %d records, want 20", n)
	}
	m3.cl.Close()
	<-m3.done
}

func transactions(ctx context.Context) {
	adm, acl := admin()
	defer acl.Close()
	in := name() + "-in"
	out := name() + "-out"
	group := name()
	txid := name()
	createTopic(ctx, adm, in, 1, nil)
	createTopic(ctx, adm, out, 1, nil)
	const inputs = 30
	p := client(kgo.DefaultProduceTopic(in))
	var recs []*kgo.Record
	for i := 0; i < inputs; i++ {
		recs = append(recs, &kgo.Record{Value: []byte(fmt.Sprintf("in-%d", i))})
	}
	mx.Check(p.ProduceSync(ctx, recs...).FirstErr(), "produce input")
	p.Close()

	sess, err := kgo.NewGroupTransactSession(
		kgo.SeedBrokers(bootstrap),
		kgo.ClientID("m-"+family),
		kgo.TransactionalID(txid),
		kgo.TransactionTimeout(20*time.Second),
		kgo.DefaultProduceTopic(out),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(in),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	)
	mx.Check(err, "transact session")
	committed := map[string]bool{}
	aborted := map[string]bool{}
	consumed := 0 // input records whose transaction committed
	txn := 0
	for i := 0; i < 100 && consumed < inputs; i++ {
		if ctx.Err() != nil {
			mx.Fail("transformed %d of %d inputs before the deadline", consumed, inputs)
		}
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		fs := sess.PollRecords(pctx, 8)
		cancel()
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				mx.Fail("fetch %s[%d]: %v", t, p, err)
			}
		})
		in := fs.Records()
		if len(in) == 0 {
			continue
		}
		txn++
		mx.Check(sess.Begin(), "begin")
		var outs []*kgo.Record
		for _, r := range in {
			outs = append(outs, &kgo.Record{Value: []byte(fmt.Sprintf("%s/txn-%d", r.Value, txn))})
		}
		mx.Check(sess.ProduceSync(ctx, outs...).FirstErr(), "produce output")
		try := kgo.TryCommit
		if txn == 2 {
			try = kgo.TryAbort
		}
		ok, err := sess.End(ctx, try)
		mx.Check(err, fmt.Sprintf("end transaction %d", txn))
		for _, r := range outs {
			if ok {
				committed[string(r.Value)] = true
			} else {
				aborted[string(r.Value)] = true
			}
		}
		if ok {
			consumed += len(in)
		}
	}
	sess.Close()
	if consumed != inputs {
		mx.Fail("transformed %d of %d inputs", consumed, inputs)
	}
	if len(aborted) == 0 {
		mx.Fail("no transaction was aborted")
	}

	// read_committed sees exactly the committed output, in order; the last transaction committed,
	// so an aborted record that leaked would come before the last committed one.
	rc := consumeN(ctx, len(committed), fromStart(out, 1), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	for _, r := range rc {
		if !committed[string(r.Value)] {
			mx.Fail("read_committed consumer saw %q (aborted: %v)", r.Value, aborted[string(r.Value)])
		}
	}
	// read_uncommitted sees the aborted records too: the abort wrote them and marked them.
	ru := consumeN(ctx, len(committed)+len(aborted), fromStart(out, 1), kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	seenAborted := 0
	for _, r := range ru {
		if aborted[string(r.Value)] {
			seenAborted++
		}
	}
	if seenAborted != len(aborted) {
		mx.Fail("read_uncommitted consumer saw %d of %d aborted records", seenAborted, len(aborted))
	}
	// The offsets become the group's once the commit markers are written, which Kafka does
	// after answering EndTxn.
	err = mx.Until(ctx, 10*time.Second, "group offset", func() (bool, error) {
		offs, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			return false, err
		}
		if o, ok := offs.Lookup(in, 0); !ok || o.Err != nil || o.At != inputs {
			return false, fmt.Errorf("group offset of the input %d (%v), want %d", o.At, o.Err, inputs)
		}
		return true, nil
	})
	mx.Check(err, "transactions")
}

func listOffsetsTime(ctx context.Context) {
	adm, acl := admin()
	defer acl.Close()
	topic := name()
	createTopic(ctx, adm, topic, 1, nil)
	t := time.Now().Add(-10 * time.Minute).UnixMilli()
	p := client(kgo.DefaultProduceTopic(topic))
	var recs []*kgo.Record
	for i := int64(0); i < 3; i++ {
		recs = append(recs, &kgo.Record{Value: []byte(strconv.FormatInt(i, 10)), Timestamp: time.UnixMilli(t + i*1000)})
	}
	mx.Check(p.ProduceSync(ctx, recs...).FirstErr(), "produce")
	p.Close()
	check := func(what string, lo kadm.ListedOffsets, err error, want int64) {
		mx.Check(err, what)
		o, ok := lo.Lookup(topic, 0)
		if !ok || o.Err != nil || o.Offset != want {
			mx.Fail("%s: offset %d (%v), want %d", what, o.Offset, o.Err, want)
		}
	}
	lo, err := adm.ListOffsetsAfterMilli(ctx, t+1000, topic)
	check("offset for t+1000", lo, err, 1)
	if o, _ := lo.Lookup(topic, 0); o.Timestamp != t+1000 {
		mx.Fail("offset for t+1000 answered timestamp %d", o.Timestamp)
	}
	lo, err = adm.ListOffsetsAfterMilli(ctx, t+1, topic)
	check("offset for t+1", lo, err, 1)
	lo, err = adm.ListOffsetsAfterMilli(ctx, t, topic)
	check("offset for t", lo, err, 0)
	lo, err = adm.ListStartOffsets(ctx, topic)
	check("earliest", lo, err, 0)
	lo, err = adm.ListEndOffsets(ctx, topic)
	check("latest", lo, err, 3)
	lo, err = adm.ListMaxTimestampOffsets(ctx, topic)
	check("max timestamp", lo, err, 2)
}

func deleteRecords(ctx context.Context) {
	adm, acl := admin()
	defer acl.Close()
	topic := name()
	createTopic(ctx, adm, topic, 1, nil)
	p := client(kgo.DefaultProduceTopic(topic))
	var recs []*kgo.Record
	for i := 0; i < 10; i++ {
		recs = append(recs, &kgo.Record{Value: []byte(strconv.Itoa(i))})
	}
	mx.Check(p.ProduceSync(ctx, recs...).FirstErr(), "produce")
	p.Close()
	var os kadm.Offsets
	os.AddOffset(topic, 0, 5, -1)
	dr, err := adm.DeleteRecords(ctx, os)
	mx.Check(err, "delete records")
	r, ok := dr.Lookup(topic, 0)
	if !ok || r.Err != nil || r.LowWatermark != 5 {
		mx.Fail("delete records: low watermark %d (%v), want 5", r.LowWatermark, r.Err)
	}
	lo, err := adm.ListStartOffsets(ctx, topic)
	mx.Check(err, "earliest")
	if o, _ := lo.Lookup(topic, 0); o.Offset != 5 {
		mx.Fail("earliest offset %d, want 5", o.Offset)
	}
	got := consumeN(ctx, 5, fromStart(topic, 1))
	for i, r := range got {
		if r.Offset != int64(5+i) || string(r.Value) != strconv.Itoa(5+i) {
			mx.Fail("record %d: offset %d value %q", i, r.Offset, r.Value)
		}
	}
}

// securityOpts maps the runner's TKAFKA_MATRIX_* settings (README, "Security scenarios") onto kgo
// options (none when they are not set); password replaces the right one and clientCert=false leaves
// the client certificate out and expiredToken=true makes the OAUTHBEARER token an expired one (the
// negative cases).
func securityOpts(password string, clientCert, expiredToken bool) []kgo.Opt {
	protocol := os.Getenv("TKAFKA_MATRIX_SECURITY_PROTOCOL")
	if protocol == "" {
		return nil
	}
	var opts []kgo.Opt
	user := os.Getenv("TKAFKA_MATRIX_SASL_USERNAME")
	var mech sasl.Mechanism
	switch os.Getenv("TKAFKA_MATRIX_SASL_MECHANISM") {
	case "":
	case "PLAIN":
		mech = plain.Auth{User: user, Pass: password}.AsMechanism()
	case "SCRAM-SHA-256":
		mech = scram.Auth{User: user, Pass: password}.AsSha256Mechanism()
	case "SCRAM-SHA-512":
		mech = scram.Auth{User: user, Pass: password}.AsSha512Mechanism()
	case "OAUTHBEARER":
		// an unsecured JWS of the user, exp in an hour; expiredToken: 10 minutes past (the refused client)
		now := time.Now().Unix()
		claims := map[string]any{"sub": user, "iat": now, "exp": now + 3600}
		if expiredToken {
			claims = map[string]any{"sub": user, "iat": now - 3600, "exp": now - 600}
		}
		mech = oauth.Auth{Token: unsecuredJws(claims)}.AsMechanism()
	default:
		mx.Fail("unknown TKAFKA_MATRIX_SASL_MECHANISM %q", os.Getenv("TKAFKA_MATRIX_SASL_MECHANISM"))
	}
	if mech != nil {
		opts = append(opts, kgo.SASL(mech))
	}
	if ca := os.Getenv("TKAFKA_MATRIX_CA_FILE"); ca != "" {
		pem, err := os.ReadFile(ca)
		mx.Check(err, "read the CA file")
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			mx.Fail("no certificate in %s", ca)
		}
		cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		if cert := os.Getenv("TKAFKA_MATRIX_CERT_FILE"); cert != "" && clientCert {
			pair, err := tls.LoadX509KeyPair(cert, os.Getenv("TKAFKA_MATRIX_KEY_FILE"))
			mx.Check(err, "load the client certificate")
			cfg.Certificates = []tls.Certificate{pair}
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	return opts
}

// unsecuredJws is an unsecured JWS (alg none, no signature) of claims: the token Kafka's default
// OAUTHBEARER validator (OAuthBearerUnsecuredValidatorCallbackHandler) accepts.
func unsecuredJws(claims map[string]any) string {
	payload, err := json.Marshal(claims)
	mx.Check(err, "encode the token's claims")
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + enc.EncodeToString(payload) + "."
}

// security: through the secured listener, create a topic, 10 keyed records there and back; then a
// client with a wrong password (SASL) or without a client certificate (mTLS) must fail.
func security(ctx context.Context) {
	adm, acl := admin()
	defer acl.Close()
	topic := name()
	createTopic(ctx, adm, topic, 1, nil)
	p := client(kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	var recs []*kgo.Record
	for i := 0; i < 10; i++ {
		recs = append(recs, &kgo.Record{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("v%d", i))})
	}
	mx.Check(p.ProduceSync(ctx, recs...).FirstErr(), "produce")
	p.Close()
	got := consumeN(ctx, 10, fromStart(topic, 1))
	for i, r := range got {
		if string(r.Key) != fmt.Sprintf("k%d", i) || string(r.Value) != fmt.Sprintf("v%d", i) {
			mx.Fail("record %d: key %q value %q", i, r.Key, r.Value)
		}
	}
	saslMode := os.Getenv("TKAFKA_MATRIX_SASL_MECHANISM") != ""
	var bad []kgo.Opt
	switch {
	case os.Getenv("TKAFKA_MATRIX_SASL_MECHANISM") == "OAUTHBEARER":
		bad = securityOpts("", true, true)
	case saslMode:
		bad = securityOpts(os.Getenv("TKAFKA_MATRIX_SASL_PASSWORD")+"-wrong", true, false)
	default:
		bad = securityOpts("", false, false)
	}
	bcl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.ClientID("m-" + family + "-refused"),
		kgo.RequestRetries(0)}, bad...)...)
	mx.Check(err, "new refused client")
	defer bcl.Close()
	bctx, bcancel := context.WithTimeout(ctx, 20*time.Second)
	defer bcancel()
	_, err = kadm.NewClient(bcl).Metadata(bctx)
	if err == nil {
		mx.Fail("the refused client (wrong password / expired token / no client certificate) got metadata")
	}
	var ke *kerr.Error
	text := err.Error()
	if saslMode {
		if !errors.As(err, &ke) || ke != kerr.SaslAuthenticationFailed {
			mx.Fail("the refused client failed, but not with SASL_AUTHENTICATION_FAILED: %v", err)
		}
	} else if !strings.Contains(text, "tls") && !strings.Contains(text, "certificate") {
		mx.Fail("the refused client failed, but not with a TLS error: %v", err)
	}
	fmt.Printf("report: refused: %.200s\n", text)
}
