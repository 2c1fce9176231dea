package moto

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Front is a loopback reverse proxy in front of moto that answers SQS from
// the local emulator (package sqs) and DynamoDB from the local DynamoDB
// (package dynamo) instead of moto's own, makes moto's DynamoDB, when it
// answers, behave like DynamoDB under concurrency, and is the place where
// tests hook faults in.
//
// moto evaluates a ConditionExpression and applies the update without a
// lock, so under concurrent requests two conditional writes to one item can
// both succeed (measured here: 1 round in 200 of 8 concurrent writers under
// CPU load had two winners). DynamoDB serializes writes to an item and never
// allows that. Front runs DynamoDB requests one at a time; SQS and everything
// else pass through concurrently, because long polls must not block.
//
// moto's SQS walks a queue's every message on each call and keeps every
// receipt handle it issued, so its calls slow down with a queue's depth and
// its memory only grows; a Front with an SQS handler (Start's default)
// answers every "AmazonSQS.*" request from it and moto never sees one.
// moto's DynamoDB costs milliseconds of Python a request; a Front with a
// DynamoDB handler (Start's default) answers every "DynamoDB_*" request
// from it.
type Front struct {
	// URL is the proxy's endpoint; point AWS_ENDPOINT_URL at it.
	URL string

	backend *url.URL
	proxy   *httputil.ReverseProxy
	srv     *http.Server
	dynamo  sync.Mutex

	sqs     http.Handler
	ddb     http.Handler
	callsMu sync.Mutex
	calls   map[string]int64

	mu        sync.RWMutex
	intercept Interceptor
}

// Interceptor sees every request before it reaches moto: it may answer it
// itself (return true), for instance with an injected throttle, or let it
// through (return false). target is the AWS API call, such as
// "DynamoDB_20120810.UpdateItem" or "AmazonSQS.SendMessage".
type Interceptor func(w http.ResponseWriter, r *http.Request, target string) bool

// StartFront serves a Front for the moto at backendURL on a free loopback
// port that passes SQS and DynamoDB requests through to it.
func StartFront(backendURL string) (*Front, error) { return startFront(backendURL, nil, nil) }

// startFront serves a Front that answers SQS requests with sqs and
// DynamoDB requests with ddb, each when it is not nil.
func startFront(backendURL string, sqs, ddb http.Handler) (*Front, error) {
	u, err := url.Parse(backendURL)
	if err != nil {
		return nil, fmt.Errorf("moto front: backend %q: %w", backendURL, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("moto front: listen: %w", err)
	}
	f := &Front{URL: "http://" + ln.Addr().String(), backend: u, sqs: sqs, ddb: ddb, calls: map[string]int64{}}
	f.proxy = httputil.NewSingleHostReverseProxy(u)
	f.proxy.Transport = &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
	f.proxy.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		// A client that gave up (a long poll cancelled at shutdown) is not an
		// error worth a log line; anything else is a 502 like any proxy's.
		if errors.Is(err, context.Canceled) {
			return
		}
		http.Error(w, "moto front: "+err.Error(), http.StatusBadGateway)
	}
	f.srv = &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	return f, nil
}

// SetInterceptor installs (or, with nil, removes) the interceptor.
func (f *Front) SetInterceptor(i Interceptor) {
	f.mu.Lock()
	f.intercept = i
	f.mu.Unlock()
}

// ServeHTTP forwards r, serializing DynamoDB calls.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	f.mu.RLock()
	intercept := f.intercept
	f.mu.RUnlock()
	f.count(r, target)
	if intercept != nil && intercept(w, r, target) {
		return
	}
	if r.URL.Path == "/moto-api/reset" {
		// moto's reset wipes its resources; the SQS and DynamoDB in front go too.
		for _, h := range []http.Handler{f.sqs, f.ddb} {
			if rs, ok := h.(interface{ Reset() }); ok {
				rs.Reset()
			}
		}
	}
	if f.sqs != nil && strings.HasPrefix(target, "AmazonSQS.") {
		f.sqs.ServeHTTP(w, r)
		return
	}
	if strings.HasPrefix(target, "DynamoDB_") && f.ddb != nil {
		f.ddb.ServeHTTP(w, r) // the local DynamoDB serializes its requests itself
		return
	}
	if strings.HasPrefix(target, "DynamoDB_") {
		f.dynamo.Lock()
		defer f.dynamo.Unlock()
	}
	f.proxy.ServeHTTP(w, r)
}

// count adds r to the requests by AWS operation: the X-Amz-Target
// ("DynamoDB_20120810.UpdateItem"), or "S3 <method>" for S3's REST calls
// and "other" for the rest.
func (f *Front) count(r *http.Request, target string) {
	key := target
	switch {
	case key != "":
	case strings.Contains(r.Header.Get("Authorization"), "/s3/"):
		key = "S3 " + r.Method
	default:
		key = "other"
	}
	f.callsMu.Lock()
	f.calls[key]++
	f.callsMu.Unlock()
}

// Calls returns the requests the Front has had, by operation (see count),
// faults it injected included.
func (f *Front) Calls() map[string]int64 {
	f.callsMu.Lock()
	defer f.callsMu.Unlock()
	return maps.Clone(f.calls)
}

// Close stops the proxy.
func (f *Front) Close() error {
	if f == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := f.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return f.srv.Close()
	}
	return nil
}
