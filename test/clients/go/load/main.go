// franz-load: the load program of the side-by-side benchmark (bench/vs-kafka), built from the client
// matrix's Go module (franz-go). One process, one or more kgo clients; every run is bounded by a
// record count and a deadline, and prints one JSON line with its figures and its own CPU time, so
// the client's ceiling (records per CPU-second it spent) is printed next to every throughput.
//
//	franz-load produce <bootstrap> <topic> <records> <size> <acks 1|all> <compression none|lz4|zstd> <clients>
//	franz-load consume <bootstrap> <topic> <records>
//
// produce's <topic> may be a comma-separated list: the records then go round-robin over the topics
// (and round-robin over each topic's partitions), as bench/vs-kafka/scale.ts spreads a load over
// many topics.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const deadline = 10 * time.Minute

// Result is what one run prints (one JSON line on stdout).
type Result struct {
	Records    int64   `json:"records"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	RecsPerSec float64 `json:"recsPerSec"`
	MBPerSec   float64 `json:"mbPerSec"`
	P50Ms      float64 `json:"p50Ms,omitempty"`
	P99Ms      float64 `json:"p99Ms,omitempty"`
	// CPUSeconds is this process's user+system time; CeilingRecsPerCPUSec = records / CPUSeconds is
	// how fast the client alone could go on one core.
	CPUSeconds           float64 `json:"cpuSeconds"`
	CeilingRecsPerCPUSec float64 `json:"ceilingRecsPerCpuSec"`
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: franz-load produce|consume ...")
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var r Result
	switch os.Args[1] {
	case "produce":
		if len(os.Args) != 9 {
			fail("usage: franz-load produce <bootstrap> <topic> <records> <size> <acks> <compression> <clients>")
		}
		r = produce(ctx, os.Args[2], os.Args[3], atoi(os.Args[4]), atoi(os.Args[5]), os.Args[6], os.Args[7], atoi(os.Args[8]))
	case "consume":
		if len(os.Args) != 5 {
			fail("usage: franz-load consume <bootstrap> <topic> <records>")
		}
		r = consume(ctx, os.Args[2], os.Args[3], atoi(os.Args[4]))
	default:
		fail("unknown command " + os.Args[1])
	}
	r.CPUSeconds = cpuSeconds()
	if r.CPUSeconds > 0 {
		r.CeilingRecsPerCPUSec = float64(r.Records) / r.CPUSeconds
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
}

func produce(ctx context.Context, bootstrap, topic string, records, size int, acks, compression string, clients int) Result {
	topics := strings.Split(topic, ",")
	opts := []kgo.Opt{
		kgo.SeedBrokers(bootstrap),
		kgo.DefaultProduceTopic(topics[0]),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
		kgo.ProducerLinger(5 * time.Millisecond),
		kgo.ProducerBatchMaxBytes(1 << 20),
		kgo.MaxBufferedRecords(1 << 20),
	}
	if acks == "all" {
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	} else {
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	}
	switch compression {
	case "lz4":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	case "zstd":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	default:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.NoCompression()))
	}
	// one payload of random upper-case letters, as Kafka's ProducerPerformance sends
	payload := make([]byte, size)
	rng := rand.New(rand.NewSource(1))
	for i := range payload {
		payload[i] = byte('A' + rng.Intn(26))
	}
	latencies := make([]float32, records)
	var done, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < clients; c++ {
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			fail(err.Error())
		}
		from, to := records*c/clients, records*(c+1)/clients
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cl.Close()
			for i := from; i < to; i++ {
				sent := time.Now()
				idx := i
				cl.Produce(ctx, &kgo.Record{Topic: topics[i%len(topics)], Value: payload}, func(_ *kgo.Record, err error) {
					if err != nil {
						failed.Add(1)
					}
					latencies[idx] = float32(time.Since(sent).Seconds() * 1000)
					done.Add(1)
				})
			}
			if err := cl.Flush(ctx); err != nil {
				fail("flush: " + err.Error())
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	if failed.Load() > 0 || done.Load() != int64(records) {
		fail(fmt.Sprintf("%d of %d records failed, %d acknowledged", failed.Load(), records, done.Load()))
	}
	sort.Slice(latencies, func(a, b int) bool { return latencies[a] < latencies[b] })
	bytes := int64(records) * int64(size)
	return Result{
		Records:    int64(records),
		Bytes:      bytes,
		Seconds:    secs,
		RecsPerSec: float64(records) / secs,
		MBPerSec:   float64(bytes) / 1e6 / secs,
		P50Ms:      float64(latencies[records/2]),
		P99Ms:      float64(latencies[records*99/100]),
	}
}

func consume(ctx context.Context, bootstrap, topic string, records int) Result {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(bootstrap),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxBytes(64<<20),
		kgo.FetchMaxPartitionBytes(16<<20),
	)
	if err != nil {
		fail(err.Error())
	}
	defer cl.Close()
	var n, bytes int64
	start := time.Now()
	for n < int64(records) {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			fail(fmt.Sprintf("deadline: %d of %d records consumed", n, records))
		}
		fs.EachError(func(t string, p int32, err error) { fail(fmt.Sprintf("%s-%d: %v", t, p, err)) })
		fs.EachRecord(func(r *kgo.Record) {
			n++
			bytes += int64(len(r.Value))
		})
	}
	secs := time.Since(start).Seconds()
	return Result{Records: n, Bytes: bytes, Seconds: secs, RecsPerSec: float64(n) / secs, MBPerSec: float64(bytes) / 1e6 / secs}
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		fail("not a positive number: " + s)
	}
	return n
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "franz-load: "+msg)
	os.Exit(1)
}
