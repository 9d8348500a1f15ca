// Package mx holds what both Go client programs of the matrix share: the program contract of
// test/clients/README.md (exit 0 pass, 3 n/a, anything else fail), names, bounded waits.
package mx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// Budget is how long one scenario may take (the contract allows 60 s).
const Budget = 55 * time.Second

// Fail prints what went wrong on stderr and exits 1.
func Fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// Check fails with the message when err is not nil.
func Check(err error, what string) {
	if err != nil {
		Fail("%s: %v", what, err)
	}
}

// NA prints why the scenario cannot be expressed and exits 3.
func NA(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
	os.Exit(3)
}

// Name returns m-<family>-<scenario>-<random suffix>.
func Name(family, scenario string) string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return fmt.Sprintf("m-%s-%s-%s", family, scenario, hex.EncodeToString(b))
}

// ModuleVersion returns the version of the module at path that this binary was built with.
func ModuleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range info.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return "unknown"
}

// Until calls cond every interval until it returns true, the context ends or the deadline
// passes; it returns the last error cond gave (or a timeout error).
func Until(ctx context.Context, within time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(within)
	var last error
	for i := 0; i < 10000; i++ {
		ok, err := cond()
		if ok {
			return nil
		}
		last = err
		if time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	if last != nil {
		return fmt.Errorf("%s: not within %v: %w", what, within, last)
	}
	return fmt.Errorf("%s: not within %v", what, within)
}

// Args reads `<scenario> <bootstrap>` from the command line.
func Args() (scenario, bootstrap string) {
	if len(os.Args) < 2 {
		Fail("usage: %s <scenario> <bootstrap>", os.Args[0])
	}
	scenario = os.Args[1]
	if scenario == "version" {
		return scenario, ""
	}
	if len(os.Args) < 3 {
		Fail("usage: %s <scenario> <bootstrap>", os.Args[0])
	}
	bootstrap = os.Args[2]
	if !strings.HasPrefix(bootstrap, "127.0.0.1:") && !strings.HasPrefix(bootstrap, "localhost:") {
		Fail("only 127.0.0.1 may be contacted, got %q", bootstrap)
	}
	return scenario, bootstrap
}

// Value is a compressible record value (codecs skip compressing what does not shrink).
func Value(i int) []byte {
	return []byte(fmt.Sprintf("value-%04d %s", i, strings.Repeat("abcdefgh", 16)))
}

// SortedKeys lists the partitions of a set in ascending order, for messages.
func SortedKeys(m map[int32]bool) []int32 {
	var ks []int32
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}
