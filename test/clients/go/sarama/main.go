// The sarama family of the client matrix (test/clients/README.md): ClusterAdmin, Client,
// SyncProducer (plain, idempotent, transactional), Consumer and ConsumerGroup.
//
//	sarama-client <scenario> <bootstrap>
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/IBM/sarama"

	"tkafka.test/clients/go/internal/mx"
)

const family = "sarama"

var (
	bootstrap string
	scenario  string
)

func main() {
	scenario, bootstrap = mx.Args()
	if scenario == "version" {
		fmt.Printf("sarama %s\n", mx.ModuleVersion("github.com/IBM/sarama"))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), mx.Budget)
	defer cancel()
	run := map[string]func(context.Context){
		"metadata-named":    metadataNamed,
		"metadata-all":      metadataAll,
		"admin-topics":      adminTopics,
		"admin-configs":     adminConfigs,
		"produce-consume":   produceConsume,
		"idempotent":        idempotent,
		"group-classic":     groupClassic,
		"group-consumer":    groupConsumer,
		"transactions":      transactions,
		"list-offsets-time": listOffsetsTime,
		"delete-records":    deleteRecords,
		"sasl-oauthbearer":  oauthbearer,
	}[scenario]
	if run == nil {
		mx.Fail("unknown scenario %q", scenario)
	}
	run(ctx)
}

func name() string { return mx.Name(family, scenario) }

// config is sarama's config at the newest protocol version it knows (headers, timestamps, zstd,
// ListGroups v5 need a recent one; the default is 2.8).
func config() *sarama.Config {
	c := sarama.NewConfig()
	c.Version = sarama.MaxVersion
	c.ClientID = "m-" + family
	c.Metadata.AllowAutoTopicCreation = false
	c.Producer.Return.Successes = true
	c.Consumer.Return.Errors = true
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	return c
}

func newClient(c *sarama.Config) sarama.Client {
	if c == nil {
		c = config()
	}
	cl, err := sarama.NewClient([]string{bootstrap}, c)
	mx.Check(err, "new client")
	return cl
}

func admin() (sarama.ClusterAdmin, sarama.Client) {
	cl := newClient(nil)
	adm, err := sarama.NewClusterAdminFromClient(cl)
	mx.Check(err, "new cluster admin")
	return adm, cl
}

func createTopic(ctx context.Context, adm sarama.ClusterAdmin, cl sarama.Client, topic string, partitions int32,
	configs map[string]*string) {
	err := adm.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: partitions, ReplicationFactor: 1, ConfigEntries: configs}, false)
	mx.Check(err, "create topic "+topic)
	err = mx.Until(ctx, 15*time.Second, "leaders of "+topic, func() (bool, error) {
		if err := cl.RefreshMetadata(topic); err != nil {
			return false, err
		}
		ps, err := cl.Partitions(topic)
		if err != nil || len(ps) != int(partitions) {
			return false, fmt.Errorf("partitions %v: %v", ps, err)
		}
		for _, p := range ps {
			if _, err := cl.Leader(topic, p); err != nil {
				return false, fmt.Errorf("leader of %d: %w", p, err)
			}
		}
		return true, nil
	})
	mx.Check(err, "create topic")
}

func metadataNamed(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	topic := name()
	createTopic(ctx, adm, cl, topic, 3, nil)
	mds, err := adm.DescribeTopics([]string{topic})
	mx.Check(err, "describe topics")
	if len(mds) != 1 || mds[0].Name != topic {
		mx.Fail("metadata for one topic answered %d topics", len(mds))
	}
	md := mds[0]
	if md.Err != sarama.ErrNoError {
		mx.Fail("topic error %v", md.Err)
	}
	if len(md.Partitions) != 3 {
		mx.Fail("want 3 partitions, got %d", len(md.Partitions))
	}
	brokers := map[int32]bool{}
	for _, b := range cl.Brokers() {
		brokers[b.ID()] = true
	}
	seen := map[int32]bool{}
	for _, p := range md.Partitions {
		seen[p.ID] = true
		if p.Err != sarama.ErrNoError || !brokers[p.Leader] || len(p.Replicas) != 1 || len(p.Isr) != 1 {
			mx.Fail("partition %d: leader %d (brokers %v) replicas %v isr %v err %v",
				p.ID, p.Leader, brokers, p.Replicas, p.Isr, p.Err)
		}
		leader, err := cl.Leader(topic, p.ID)
		mx.Check(err, "leader")
		if leader.ID() != p.Leader {
			mx.Fail("client's leader %d differs from metadata's %d", leader.ID(), p.Leader)
		}
	}
	if len(seen) != 3 || !seen[0] || !seen[1] || !seen[2] {
		mx.Fail("partition ids %v", seen)
	}
}

func metadataAll(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	topic := name()
	createTopic(ctx, adm, cl, topic, 1, nil)
	topics, err := adm.ListTopics()
	mx.Check(err, "list topics")
	td, ok := topics[topic]
	if !ok {
		mx.Fail("topic %s not listed among %d topics", topic, len(topics))
	}
	if td.NumPartitions != 1 || td.ReplicationFactor != 1 {
		mx.Fail("listed with %d partitions, replication %d", td.NumPartitions, td.ReplicationFactor)
	}
	mx.Check(cl.RefreshMetadata(), "metadata for all topics")
	names, err := cl.Topics()
	mx.Check(err, "client topics")
	found := false
	for _, n := range names {
		found = found || n == topic
	}
	if !found {
		mx.Fail("client metadata for all topics does not list %s", topic)
	}
}

func topicConfig(adm sarama.ClusterAdmin, topic, key string) sarama.ConfigEntry {
	entries, err := adm.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic})
	mx.Check(err, "describe config")
	for _, e := range entries {
		if e.Name == key {
			return e
		}
	}
	mx.Fail("config %s not described (%d configs)", key, len(entries))
	return sarama.ConfigEntry{}
}

func adminTopics(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	topic := name()
	compact := "compact"
	createTopic(ctx, adm, cl, topic, 2, map[string]*string{"cleanup.policy": &compact})
	mds, err := adm.DescribeTopics([]string{topic})
	mx.Check(err, "describe topic")
	if len(mds) != 1 || len(mds[0].Partitions) != 2 {
		mx.Fail("describe topic: %d topics, want 1 with 2 partitions", len(mds))
	}
	c := topicConfig(adm, topic, "cleanup.policy")
	if c.Value != "compact" || c.Source != sarama.SourceTopic {
		mx.Fail("cleanup.policy = %q (%s), want compact (topic)", c.Value, c.Source)
	}
	mx.Check(adm.DeleteTopic(topic), "delete topic")
	err = mx.Until(ctx, 20*time.Second, "topic gone", func() (bool, error) {
		mds, err := adm.DescribeTopics([]string{topic})
		if err != nil {
			return false, err
		}
		if len(mds) == 1 && mds[0].Err == sarama.ErrUnknownTopicOrPartition {
			return true, nil
		}
		return false, fmt.Errorf("metadata still answers the topic (%d)", len(mds))
	})
	mx.Check(err, "after delete")
	all, err := adm.ListTopics()
	mx.Check(err, "list topics")
	if _, ok := all[topic]; ok {
		mx.Fail("deleted topic still listed")
	}
}

func adminConfigs(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	topic := name()
	createTopic(ctx, adm, cl, topic, 1, nil)
	c := topicConfig(adm, topic, "retention.ms")
	if c.Value != "604800000" || c.Source != sarama.SourceDefault {
		mx.Fail("retention.ms = %q (%s), want 604800000 (default)", c.Value, c.Source)
	}
	v := "3600000"
	err := adm.IncrementalAlterConfig(sarama.TopicResource, topic, map[string]sarama.IncrementalAlterConfigsEntry{
		"retention.ms": {Operation: sarama.IncrementalAlterConfigsOperationSet, Value: &v},
	}, false)
	mx.Check(err, "incremental alter config")
	// Kafka's brokers apply a config change when they replay it from the metadata log: the
	// describe that follows may still answer the old value for a moment.
	waitConfig(ctx, adm, topic, "retention.ms", v, sarama.SourceTopic)
	// The legacy AlterConfigs replaces the topic's whole set: cleanup.policy alone afterwards.
	compact := "compact"
	mx.Check(adm.AlterConfig(sarama.TopicResource, topic, map[string]*string{"cleanup.policy": &compact}, false), "alter config")
	waitConfig(ctx, adm, topic, "cleanup.policy", compact, sarama.SourceTopic)
	waitConfig(ctx, adm, topic, "retention.ms", "604800000", sarama.SourceDefault)
}

func waitConfig(ctx context.Context, adm sarama.ClusterAdmin, topic, key, value string, source sarama.ConfigSource) {
	err := mx.Until(ctx, 10*time.Second, "altered config", func() (bool, error) {
		c := topicConfig(adm, topic, key)
		if c.Value != value || c.Source != source {
			return false, fmt.Errorf("%s = %q (%s), want %q (%s)", key, c.Value, c.Source, value, source)
		}
		return true, nil
	})
	mx.Check(err, "admin-configs")
}

// consumeN reads n messages of one partition from offset with a new consumer.
func consumeN(ctx context.Context, c *sarama.Config, topic string, partition int32, offset int64, n int) []*sarama.ConsumerMessage {
	if c == nil {
		c = config()
	}
	consumer, err := sarama.NewConsumer([]string{bootstrap}, c)
	mx.Check(err, "new consumer")
	defer consumer.Close()
	pc, err := consumer.ConsumePartition(topic, partition, offset)
	mx.Check(err, "consume partition")
	defer pc.Close()
	var msgs []*sarama.ConsumerMessage
	for len(msgs) < n {
		select {
		case m := <-pc.Messages():
			msgs = append(msgs, m)
		case e := <-pc.Errors():
			mx.Fail("consume: %v", e)
		case <-ctx.Done():
			mx.Fail("consumed %d of %d messages before the deadline", len(msgs), n)
		}
	}
	return msgs
}

// storedCodecs fetches the partition raw from its leader and returns the codec of every batch.
func storedCodecs(cl sarama.Client, topic string) []sarama.CompressionCodec {
	leader, err := cl.Leader(topic, 0)
	mx.Check(err, "leader")
	req := &sarama.FetchRequest{Version: 11, MaxWaitTime: 500, MinBytes: 1, MaxBytes: 10 << 20}
	req.AddBlock(topic, 0, 0, 10<<20, -1)
	resp, err := leader.Fetch(req)
	mx.Check(err, "raw fetch")
	b := resp.GetBlock(topic, 0)
	if b == nil || b.Err != sarama.ErrNoError {
		mx.Fail("raw fetch: %v", b)
	}
	var codecs []sarama.CompressionCodec
	for _, rs := range b.RecordsSet {
		if rs.RecordBatch == nil {
			mx.Fail("raw fetch answered a legacy message set")
		}
		codecs = append(codecs, rs.RecordBatch.Codec)
	}
	return codecs
}

func produceConsume(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	codecs := []sarama.CompressionCodec{
		sarama.CompressionNone, sarama.CompressionGZIP, sarama.CompressionSnappy,
		sarama.CompressionLZ4, sarama.CompressionZSTD,
	}
	base := time.Now().Add(-time.Hour).UnixMilli()
	for _, codec := range codecs {
		topic := name() + "-" + codec.String()
		createTopic(ctx, adm, cl, topic, 1, nil)
		c := config()
		c.Producer.Compression = codec
		c.Producer.Flush.Messages = 100
		c.Producer.Flush.Frequency = 100 * time.Millisecond
		p, err := sarama.NewSyncProducer([]string{bootstrap}, c)
		mx.Check(err, "new producer")
		var msgs []*sarama.ProducerMessage
		for i := 0; i < 100; i++ {
			msgs = append(msgs, &sarama.ProducerMessage{
				Topic:     topic,
				Key:       sarama.StringEncoder(fmt.Sprintf("key-%d", i)),
				Value:     sarama.ByteEncoder(mx.Value(i)),
				Timestamp: time.UnixMilli(base + int64(i)*10),
				Headers: []sarama.RecordHeader{
					{Key: []byte("h1"), Value: []byte(fmt.Sprintf("one-%d", i))},
					{Key: []byte("h2"), Value: []byte(fmt.Sprintf("two-%d", i))},
				},
			})
		}
		mx.Check(p.SendMessages(msgs), codec.String()+": produce")
		mx.Check(p.Close(), "close producer")
		got := consumeN(ctx, nil, topic, 0, sarama.OffsetOldest, 100)
		for i, m := range got {
			what := fmt.Sprintf("%s: record %d", codec, i)
			if m.Offset != int64(i) {
				mx.Fail("%s: offset %d", what, m.Offset)
			}
			if string(m.Key) != fmt.Sprintf("key-%d", i) || !bytes.Equal(m.Value, mx.Value(i)) {
				mx.Fail("%s: key %q value %q", what, m.Key, m.Value)
			}
			if m.Timestamp.UnixMilli() != base+int64(i)*10 {
				mx.Fail("%s: timestamp %d, want %d", what, m.Timestamp.UnixMilli(), base+int64(i)*10)
			}
			h := m.Headers
			if len(h) != 2 || string(h[0].Key) != "h1" || string(h[0].Value) != fmt.Sprintf("one-%d", i) ||
				string(h[1].Key) != "h2" || string(h[1].Value) != fmt.Sprintf("two-%d", i) {
				mx.Fail("%s: %d headers", what, len(h))
			}
		}
		for _, stored := range storedCodecs(cl, topic) {
			if stored != codec {
				mx.Fail("%s: a batch is stored with codec %s", codec, stored)
			}
		}
	}
}

func idempotent(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	topic := name()
	createTopic(ctx, adm, cl, topic, 1, nil)
	c := config()
	c.Producer.Idempotent = true
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Net.MaxOpenRequests = 1
	c.Producer.Retry.Max = 10
	p, err := sarama.NewSyncProducer([]string{bootstrap}, c)
	mx.Check(err, "new idempotent producer")
	var msgs []*sarama.ProducerMessage
	for i := 0; i < 1000; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(strconv.Itoa(i))})
	}
	mx.Check(p.SendMessages(msgs), "produce")
	mx.Check(p.Close(), "close producer")
	got := consumeN(ctx, nil, topic, 0, sarama.OffsetOldest, 1000)
	for i, m := range got {
		if m.Offset != int64(i) || string(m.Value) != strconv.Itoa(i) {
			mx.Fail("record %d: offset %d value %q", i, m.Offset, m.Value)
		}
	}
	end, err := cl.GetOffset(topic, 0, sarama.OffsetNewest)
	mx.Check(err, "latest offset")
	if end != 1000 {
		mx.Fail("end offset %d, want 1000 (duplicates?)", end)
	}
	// The batches carry a producer id: the log is idempotent, not merely ordered.
	leader, err := cl.Leader(topic, 0)
	mx.Check(err, "leader")
	req := &sarama.FetchRequest{Version: 11, MaxWaitTime: 500, MinBytes: 1, MaxBytes: 1 << 20}
	req.AddBlock(topic, 0, 0, 1<<20, -1)
	resp, err := leader.Fetch(req)
	mx.Check(err, "raw fetch")
	b := resp.GetBlock(topic, 0)
	if b == nil || len(b.RecordsSet) == 0 || b.RecordsSet[0].RecordBatch == nil {
		mx.Fail("raw fetch answered no batch")
	}
	if rb := b.RecordsSet[0].RecordBatch; rb.ProducerID < 0 || rb.FirstSequence != 0 {
		mx.Fail("first batch has producer id %d sequence %d", rb.ProducerID, rb.FirstSequence)
	}
}

// handler is one ConsumerGroup member's handler: it records its claims and messages and
// commits every message it consumed.
type handler struct {
	mu       sync.Mutex
	assigned map[int32]bool
	msgs     []*sarama.ConsumerMessage
	topic    string
}

func (h *handler) Setup(s sarama.ConsumerGroupSession) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.assigned = map[int32]bool{}
	for _, p := range s.Claims()[h.topic] {
		h.assigned[p] = true
	}
	return nil
}

func (h *handler) Cleanup(s sarama.ConsumerGroupSession) error {
	s.Commit()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.assigned = map[int32]bool{}
	return nil
}

func (h *handler) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for {
		select {
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			h.mu.Lock()
			h.msgs = append(h.msgs, m)
			h.mu.Unlock()
			s.MarkMessage(m, "")
			s.Commit()
		case <-s.Context().Done():
			return nil
		}
	}
}

func (h *handler) snapshot() (map[int32]bool, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := map[int32]bool{}
	for p := range h.assigned {
		a[p] = true
	}
	return a, len(h.msgs)
}

type groupMember struct {
	g      sarama.ConsumerGroup
	h      *handler
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error
}

func startMember(ctx context.Context, group, topic string) *groupMember {
	c := config()
	c.Consumer.Offsets.AutoCommit.Enable = false
	c.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRange()}
	g, err := sarama.NewConsumerGroup([]string{bootstrap}, group, c)
	mx.Check(err, "new consumer group")
	mctx, cancel := context.WithCancel(ctx)
	m := &groupMember{g: g, h: &handler{topic: topic}, cancel: cancel, done: make(chan struct{})}
	go func() {
		for e := range g.Errors() {
			m.mu.Lock()
			m.err = e
			m.mu.Unlock()
		}
	}()
	go func() {
		defer close(m.done)
		for i := 0; i < 1000 && mctx.Err() == nil; i++ {
			if err := g.Consume(mctx, []string{topic}, m.h); err != nil {
				if errors.Is(err, sarama.ErrClosedConsumerGroup) {
					return
				}
				m.mu.Lock()
				m.err = err
				m.mu.Unlock()
				return
			}
		}
	}()
	return m
}

func (m *groupMember) stop() {
	m.cancel()
	<-m.done
	mx.Check(m.g.Close(), "close consumer group")
}

func (m *groupMember) failed() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

func produceSpread(topic string, partitions int32, perPartition int, tag string) {
	c := config()
	c.Producer.Partitioner = sarama.NewManualPartitioner
	p, err := sarama.NewSyncProducer([]string{bootstrap}, c)
	mx.Check(err, "new producer")
	defer p.Close()
	var msgs []*sarama.ProducerMessage
	for part := int32(0); part < partitions; part++ {
		for i := 0; i < perPartition; i++ {
			v := fmt.Sprintf("%s-%d-%d", tag, part, i)
			msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Partition: part, Value: sarama.StringEncoder(v)})
		}
	}
	mx.Check(p.SendMessages(msgs), "produce")
}

func groupClassic(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	topic := name()
	group := name()
	createTopic(ctx, adm, cl, topic, 4, nil)
	m1 := startMember(ctx, group, topic)
	m2 := startMember(ctx, group, topic)
	var a1, a2 map[int32]bool
	err := mx.Until(ctx, 40*time.Second, "both members assigned", func() (bool, error) {
		for _, m := range []*groupMember{m1, m2} {
			if err := m.failed(); err != nil {
				mx.Fail("consumer group: %v", err)
			}
		}
		a1, _ = m1.h.snapshot()
		a2, _ = m2.h.snapshot()
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
	ds, err := adm.DescribeConsumerGroups([]string{group})
	mx.Check(err, "describe groups")
	if len(ds) != 1 || ds[0].ProtocolType != "consumer" || len(ds[0].Members) != 2 {
		mx.Fail("describe group: %+v", ds)
	}
	groups, err := adm.ListConsumerGroups()
	mx.Check(err, "list groups")
	if groups[group] != "consumer" {
		mx.Fail("group listed with protocol type %q", groups[group])
	}

	produceSpread(topic, 4, 10, "first")
	err = mx.Until(ctx, 30*time.Second, "consume 40 records", func() (bool, error) {
		_, n1 := m1.h.snapshot()
		_, n2 := m2.h.snapshot()
		return n1+n2 >= 40, fmt.Errorf("consumed %d + %d", n1, n2)
	})
	mx.Check(err, "group")
	seen := map[string]bool{}
	for i, m := range []*groupMember{m1, m2} {
		a, _ := m.h.snapshot()
		m.h.mu.Lock()
		for _, r := range m.h.msgs {
			id := fmt.Sprintf("%d/%d", r.Partition, r.Offset)
			if seen[id] {
				mx.Fail("record %s delivered twice", id)
			}
			seen[id] = true
			if !a[r.Partition] {
				mx.Fail("member %d got a record of partition %d, assigned %v", i+1, r.Partition, mx.SortedKeys(a))
			}
		}
		m.h.mu.Unlock()
	}
	if len(seen) != 40 {
		mx.Fail("consumed %d distinct records, want 40", len(seen))
	}
	m1.stop()
	m2.stop()
	offs, err := adm.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0, 1, 2, 3}})
	mx.Check(err, "fetch offsets")
	for p := int32(0); p < 4; p++ {
		b := offs.GetBlock(topic, p)
		if b == nil || b.Err != sarama.ErrNoError || b.Offset != 10 {
			mx.Fail("committed offset of partition %d: %+v, want 10", p, b)
		}
	}

	produceSpread(topic, 4, 5, "second")
	m3 := startMember(ctx, group, topic)
	err = mx.Until(ctx, 30*time.Second, "resume", func() (bool, error) {
		if err := m3.failed(); err != nil {
			mx.Fail("consumer group: %v", err)
		}
		_, n := m3.h.snapshot()
		return n >= 20, fmt.Errorf("new member consumed %d of 20", n)
	})
	mx.Check(err, "group")
	m3.h.mu.Lock()
	for _, r := range m3.h.msgs {
		if r.Offset < 10 || !strings.HasPrefix(string(r.Value), "second-") {
			mx.Fail("new member re-consumed %d/%d %q", r.Partition, r.Offset, r.Value)
		}
	}
	n := len(m3.h.msgs)
	m3.h.mu.Unlock()
	if n != 20 {
		mx.Fail("new member consumed %d records, want 20", n)
	}
	m3.stop()
}

func groupConsumer(context.Context) {
	mx.NA("sarama has no KIP-848 consumer (group.protocol=consumer): its ConsumerGroup speaks only " +
		"the classic JoinGroup/SyncGroup protocol")
}

// transactions runs a consume-transform-produce loop: a read_committed partition consumer reads
// the input, a transactional producer writes the output and sends the consumed offsets to the
// transaction (AddOffsetsToTxn for the group); the second transaction is aborted, after which
// the loop re-reads from the group's committed offset.
func transactions(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	in := name() + "-in"
	out := name() + "-out"
	group := name()
	txid := name()
	createTopic(ctx, adm, cl, in, 1, nil)
	createTopic(ctx, adm, cl, out, 1, nil)
	const inputs = 30
	produceSpread(in, 1, inputs, "in")

	pc := config()
	pc.Producer.Idempotent = true
	pc.Producer.RequiredAcks = sarama.WaitForAll
	pc.Producer.Transaction.ID = txid
	pc.Net.MaxOpenRequests = 1
	p, err := sarama.NewSyncProducer([]string{bootstrap}, pc)
	mx.Check(err, "new transactional producer")
	defer p.Close()

	cc := config()
	cc.Consumer.IsolationLevel = sarama.ReadCommitted
	consumer, err := sarama.NewConsumer([]string{bootstrap}, cc)
	mx.Check(err, "new consumer")
	defer consumer.Close()

	committed := map[string]bool{}
	aborted := map[string]bool{}
	next := int64(0) // the group's committed offset, where the loop reads from
	txn := 0
	for i := 0; i < 50 && next < inputs; i++ {
		part, err := consumer.ConsumePartition(in, 0, next)
		mx.Check(err, "consume input")
		var batch []*sarama.ConsumerMessage
		for len(batch) < 8 && next+int64(len(batch)) < inputs {
			select {
			case m := <-part.Messages():
				batch = append(batch, m)
			case e := <-part.Errors():
				mx.Fail("consume input: %v", e)
			case <-ctx.Done():
				mx.Fail("input not consumed before the deadline")
			}
		}
		mx.Check(part.Close(), "close partition consumer")
		txn++
		mx.Check(p.BeginTxn(), "begin")
		var values []string
		for _, m := range batch {
			v := fmt.Sprintf("%s/txn-%d", m.Value, txn)
			values = append(values, v)
			_, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: out, Value: sarama.StringEncoder(v)})
			mx.Check(err, "produce output")
		}
		last := batch[len(batch)-1]
		err = p.AddOffsetsToTxn(map[string][]*sarama.PartitionOffsetMetadata{
			in: {{Partition: 0, Offset: last.Offset + 1, LeaderEpoch: -1}},
		}, group)
		mx.Check(err, "add offsets to transaction")
		if txn == 2 {
			mx.Check(p.AbortTxn(), "abort")
			for _, v := range values {
				aborted[v] = true
			}
			continue
		}
		mx.Check(p.CommitTxn(), "commit")
		for _, v := range values {
			committed[v] = true
		}
		next = last.Offset + 1
		// The offsets become the group's once the commit markers are written, which Kafka does
		// after answering EndTxn.
		err = mx.Until(ctx, 10*time.Second, "group offset after the commit", func() (bool, error) {
			offs, err := adm.ListConsumerGroupOffsets(group, map[string][]int32{in: {0}})
			if err != nil {
				return false, err
			}
			if b := offs.GetBlock(in, 0); b == nil || b.Offset != next {
				return false, fmt.Errorf("after commit %d the group's offset is %+v, want %d", txn, b, next)
			}
			return true, nil
		})
		mx.Check(err, "transactions")
	}
	if next != inputs {
		mx.Fail("transformed %d of %d inputs", next, inputs)
	}
	if len(aborted) == 0 {
		mx.Fail("no transaction was aborted")
	}

	rc := consumeN(ctx, cc, out, 0, sarama.OffsetOldest, len(committed))
	for _, m := range rc {
		if !committed[string(m.Value)] {
			mx.Fail("read_committed consumer saw %q (aborted: %v)", m.Value, aborted[string(m.Value)])
		}
	}
	ru := consumeN(ctx, nil, out, 0, sarama.OffsetOldest, len(committed)+len(aborted))
	seenAborted := 0
	for _, m := range ru {
		if aborted[string(m.Value)] {
			seenAborted++
		}
	}
	if seenAborted != len(aborted) {
		mx.Fail("read_uncommitted consumer saw %d of %d aborted records", seenAborted, len(aborted))
	}
	offs, err := adm.ListConsumerGroupOffsets(group, map[string][]int32{in: {0}})
	mx.Check(err, "fetch offsets")
	if b := offs.GetBlock(in, 0); b == nil || b.Err != sarama.ErrNoError || b.Offset != inputs {
		mx.Fail("group offset of the input %+v, want %d", b, inputs)
	}
}

func listOffsetsTime(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	topic := name()
	createTopic(ctx, adm, cl, topic, 1, nil)
	t := time.Now().Add(-10 * time.Minute).UnixMilli()
	p, err := sarama.NewSyncProducer([]string{bootstrap}, config())
	mx.Check(err, "new producer")
	var msgs []*sarama.ProducerMessage
	for i := int64(0); i < 3; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{
			Topic: topic, Value: sarama.StringEncoder(strconv.FormatInt(i, 10)), Timestamp: time.UnixMilli(t + i*1000),
		})
	}
	mx.Check(p.SendMessages(msgs), "produce")
	mx.Check(p.Close(), "close producer")
	check := func(what string, ts int64, want int64) {
		o, err := cl.GetOffset(topic, 0, ts)
		mx.Check(err, what)
		if o != want {
			mx.Fail("%s: offset %d, want %d", what, o, want)
		}
	}
	check("offset for t+1000", t+1000, 1)
	check("offset for t+1", t+1, 1)
	check("offset for t", t, 0)
	check("offset after the last timestamp", t+5000, -1)
	check("earliest", sarama.OffsetOldest, 0)
	check("latest", sarama.OffsetNewest, 3)
}

func deleteRecords(ctx context.Context) {
	adm, cl := admin()
	defer adm.Close()
	topic := name()
	createTopic(ctx, adm, cl, topic, 1, nil)
	produceSpread(topic, 1, 10, "r")
	mx.Check(adm.DeleteRecords(topic, map[int32]int64{0: 5}), "delete records")
	o, err := cl.GetOffset(topic, 0, sarama.OffsetOldest)
	mx.Check(err, "earliest")
	if o != 5 {
		mx.Fail("earliest offset %d, want 5", o)
	}
	got := consumeN(ctx, nil, topic, 0, sarama.OffsetOldest, 5)
	for i, m := range got {
		if m.Offset != int64(5+i) || string(m.Value) != fmt.Sprintf("r-0-%d", 5+i) {
			mx.Fail("record %d: offset %d value %q", i, m.Offset, m.Value)
		}
	}
}

// tokenProvider gives sarama an unsecured JWS (alg none, no signature) of the matrix user: exp in
// an hour, or (expired) 10 minutes past.
type tokenProvider struct{ expired bool }

func (p tokenProvider) Token() (*sarama.AccessToken, error) {
	now := time.Now().Unix()
	sub := os.Getenv("TKAFKA_MATRIX_SASL_USERNAME")
	claims := map[string]any{"sub": sub, "iat": now, "exp": now + 3600}
	if p.expired {
		claims = map[string]any{"sub": sub, "iat": now - 3600, "exp": now - 600}
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return nil, err
	}
	enc := base64.RawURLEncoding
	return &sarama.AccessToken{Token: enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + enc.EncodeToString(payload) + "."}, nil
}

// oauthConfig is config() through the SASL_PLAINTEXT listener with OAUTHBEARER (sarama's
// SASLTypeOAuth with our token provider); the only security scenario sarama's program has.
func oauthConfig(expired bool) *sarama.Config {
	if os.Getenv("TKAFKA_MATRIX_SECURITY_PROTOCOL") != "SASL_PLAINTEXT" || os.Getenv("TKAFKA_MATRIX_SASL_MECHANISM") != "OAUTHBEARER" {
		mx.Fail("sasl-oauthbearer needs TKAFKA_MATRIX_SECURITY_PROTOCOL=SASL_PLAINTEXT and TKAFKA_MATRIX_SASL_MECHANISM=OAUTHBEARER (the runner sets them)")
	}
	c := config()
	c.Net.SASL.Enable = true
	c.Net.SASL.Mechanism = sarama.SASLTypeOAuth
	c.Net.SASL.TokenProvider = tokenProvider{expired: expired}
	return c
}

// oauthbearer: through the SASL_PLAINTEXT listener with OAUTHBEARER, create a topic, 10 keyed records
// there and back; then a client whose token expired must be refused.
func oauthbearer(ctx context.Context) {
	c := oauthConfig(false)
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Partitioner = sarama.NewManualPartitioner
	cl := newClient(c)
	adm, err := sarama.NewClusterAdminFromClient(cl)
	mx.Check(err, "new cluster admin")
	defer adm.Close()
	topic := name()
	createTopic(ctx, adm, cl, topic, 1, nil)
	p, err := sarama.NewSyncProducer([]string{bootstrap}, c)
	mx.Check(err, "new producer")
	var msgs []*sarama.ProducerMessage
	for i := 0; i < 10; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Partition: 0,
			Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)), Value: sarama.StringEncoder(fmt.Sprintf("v%d", i))})
	}
	mx.Check(p.SendMessages(msgs), "produce")
	mx.Check(p.Close(), "close the producer")
	got := consumeN(ctx, c, topic, 0, sarama.OffsetOldest, 10)
	for i, m := range got {
		if string(m.Key) != fmt.Sprintf("k%d", i) || string(m.Value) != fmt.Sprintf("v%d", i) {
			mx.Fail("record %d: key %q value %q", i, m.Key, m.Value)
		}
	}
	bad := oauthConfig(true)
	bad.ClientID = "m-" + family + "-refused"
	bad.Metadata.Retry.Max = 0
	bad.Net.DialTimeout = 10 * time.Second
	bad.Net.ReadTimeout = 10 * time.Second
	t0 := time.Now()
	bcl, err := sarama.NewClient([]string{bootstrap}, bad)
	if err == nil {
		bcl.Close()
		mx.Fail("the refused client (expired token) connected and read the metadata")
	}
	if !errors.Is(err, sarama.ErrSASLAuthenticationFailed) {
		mx.Fail("the refused client failed, but not with SASL_AUTHENTICATION_FAILED: %v", err)
	}
	if time.Since(t0) > 30*time.Second {
		mx.Fail("the refused client took %v to fail", time.Since(t0))
	}
	fmt.Printf("report: refused: %.200s\n", err.Error())
}
