// A record of an experiment (2026-11-27, docs/performance.md, "The bound: the same sandbox under an
// instrument that costs almost nothing"), not a maintained benchmark: 64 shards as goroutines of
// one Go process (GOMAXPROCS as the machine's 2 cores), each with a webhook receiver of its own
// that checks the V2 signature, a merchant on a manual clock, then 20 payouts one after another:
// initialize V2 (IMPS 1500.50, the inline payee), advance 6 s, poll the status by ref_id (advancing
// 20 s, 1 m, 5 m, ... between checks) until Success or Failed, and every other payout a 61 s advance
// and a balance check. The shards start together once every receiver listens, as bench:fleet's
// barrier does. It prints each operation's latency (ms) and the wall time. Built with go 1.19:
// `go mod init lean && go build`, run as `./lean -base http://127.0.0.1:PORT`.
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

var base string
var mu sync.Mutex
var lat = map[string][]float64{}

func rec(op string, d time.Duration) {
	mu.Lock()
	lat[op] = append(lat[op], float64(d.Microseconds())/1000)
	mu.Unlock()
}

type shard struct {
	c       *http.Client
	id      string
	headers map[string]string
	account string
	secret  string
	hooks   int
	hmu     sync.Mutex
}

func (s *shard) do(op, method, path string, body any, hdr map[string]string) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	if body != nil {
		req.Header.Set("content-type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	t := time.Now()
	res, err := s.c.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, op, err)
		return 0, nil
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	rec(op, time.Since(t))
	var j map[string]any
	json.Unmarshal(raw, &j)
	return res.StatusCode, j
}

func (s *shard) advance(by string) {
	st, _ := s.do("advance", "POST", "/__sandbox/merchants/"+s.id+"/clock/advance", map[string]any{"by": by}, nil)
	if st != 200 {
		fmt.Fprintln(os.Stderr, "advance", st)
	}
}

func run(i int, wg *sync.WaitGroup, goCh chan struct{}) {
	defer wg.Done()
	s := &shard{c: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		h := r.Header.Get("x-sandbox-signature-v2")
		var t string
		for _, p := range strings.Split(h, ",") {
			kv := strings.SplitN(strings.TrimSpace(p), "=", 2)
			if kv[0] == "t" {
				t = kv[1]
			}
		}
		m := hmac.New(sha256.New, []byte(s.secret))
		m.Write([]byte(t + "."))
		m.Write(raw)
		ok := strings.Contains(h, "v1="+hex.EncodeToString(m.Sum(nil)))
		if !ok {
			w.WriteHeader(401)
			return
		}
		s.hmu.Lock()
		s.hooks++
		s.hmu.Unlock()
		w.WriteHeader(204)
	})}
	go srv.Serve(ln)
	<-goCh
	st, m := s.do("merchant_create", "POST", "/__sandbox/merchants", map[string]any{"balance": 10000000, "clock": map[string]any{"mode": "manual"}, "webhook_url": "http://" + ln.Addr().String() + "/hooks", "webhook_version": "v2"}, nil)
	if st != 201 {
		fmt.Fprintln(os.Stderr, "create", st, m)
		return
	}
	s.id = m["merchant_id"].(string)
	s.headers = map[string]string{}
	for k, v := range m["headers"].(map[string]any) {
		s.headers[k] = v.(string)
	}
	s.account = m["account_no"].(string)
	s.secret = m["webhook_secret"].(string)
	steps := []string{"20s", "1m", "5m", "30m", "1h"}
	for f := 0; f < 20; f++ {
		cref := fmt.Sprintf("G%03d-%02d", i, f)
		st, j := s.do("initialize_v2", "POST", "/api/v2/public/payment/transfer", map[string]any{
			"client_ref_id": cref, "transfer_type": "BANK", "amount": 1500.5, "payment_method": "1001", "debit_from": s.account,
			"beneficiary_name": "Ravi Kumar", "beneficiary_email": "ravi.kumar@example.com", "beneficiary_mobile": "9812345670",
			"account_number": "50100012345678", "ifsc_code": "HDFC0001234", "purpose": "VENDOR_PAYOUT", "remarks": "go"}, s.headers)
		if st != 200 {
			fmt.Fprintln(os.Stderr, "init", st, j)
			continue
		}
		ref := fmt.Sprint(j["data"].(map[string]any)["ref_id"])
		s.advance("6s")
		for k := 0; k < 8; k++ {
			st, j := s.do("status", "GET", "/api/v1/public/payment/transfer/status?ref_id="+ref, nil, s.headers)
			if st != 200 {
				fmt.Fprintln(os.Stderr, "status", st, j)
				break
			}
			status := j["data"].(map[string]any)["transaction"].(map[string]any)["status"]
			if status == "Success" || status == "Failed" {
				break
			}
			s.advance(steps[min(k, len(steps)-1)])
		}
		if f%2 == 0 {
			s.advance("61s")
			s.do("balance", "GET", "/api/v1/public/balance/check?account_no="+s.account, nil, s.headers)
		}
	}
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func main() {
	n := flag.Int("n", 64, "shards")
	flag.StringVar(&base, "base", "", "")
	flag.Parse()
	var wg sync.WaitGroup
	goCh := make(chan struct{})
	for i := 0; i < *n; i++ {
		wg.Add(1)
		go run(i, &wg, goCh)
	}
	time.Sleep(300 * time.Millisecond)
	t := time.Now()
	close(goCh)
	wg.Wait()
	fmt.Printf("wall %.1f s\n", time.Since(t).Seconds())
	total := 0
	for op, v := range lat {
		sort.Float64s(v)
		total += len(v)
		fmt.Printf("%-16s min=%6.1f n=%5d p50=%6.1f p99=%6.1f max=%6.1f\n", op, v[0], len(v), v[len(v)/2], v[int(float64(len(v))*0.99)], v[len(v)-1])
	}
	fmt.Println("requests", total)
}
