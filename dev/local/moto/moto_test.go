//go:build unix

package moto_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/triagehq/triage/dev/local/localtest"
	"github.com/triagehq/triage/dev/local/moto"
)

// start starts a private moto_server (not localtest's shared one: these
// tests stop it) and stops it when the test ends.
func start(t *testing.T, opts moto.Options) *moto.Server {
	t.Helper()
	localtest.Require(t, "moto_server", moto.InstallHint)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := moto.Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// config is the AWS configuration of the server at url; t fails at once on
// an error.
func config(t testing.TB, url string) aws.Config {
	t.Helper()
	cfg, err := moto.Config(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestStartAnswersAndStopKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "moto.log")
	s := start(t, moto.Options{LogPath: logPath})

	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Errorf("URL = %q, want a 127.0.0.1 endpoint", s.URL)
	}
	if s.PID <= 1 {
		t.Fatalf("PID = %d", s.PID)
	}
	if pgid, err := syscall.Getpgid(s.PID); err != nil || pgid != s.PID {
		t.Errorf("Getpgid(%d) = %d, %v; want its own process group", s.PID, pgid, err)
	}
	resp, err := http.Get(s.URL + "/moto-api/data.json")
	if err != nil {
		t.Fatalf("GET data.json: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET data.json: HTTP %d", resp.StatusCode)
	}

	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done not closed after Stop")
	}
	// Reaped, not a zombie: the PID no longer exists at all.
	if err := syscall.Kill(s.PID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(%d, 0) after Stop = %v, want ESRCH", s.PID, err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := http.Get(s.URL + "/moto-api/data.json"); err == nil {
		t.Error("server still answers after Stop")
	}
	if b, err := os.ReadFile(logPath); err != nil || len(b) == 0 {
		t.Errorf("log file: %d bytes, %v; want moto's output", len(b), err)
	}
}

func TestStopServerThatAlreadyExited(t *testing.T) {
	t.Parallel()
	s := start(t, moto.Options{})
	if err := syscall.Kill(s.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("process not reaped after SIGKILL")
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop after exit: %v", err)
	}
}

func TestStopNil(t *testing.T) {
	t.Parallel()
	var s *moto.Server
	if err := s.Stop(); err != nil {
		t.Errorf("nil Stop: %v", err)
	}
}

func TestResetAndConfig(t *testing.T) {
	t.Parallel()
	s := start(t, moto.Options{})
	ctx := t.Context()
	cfg := config(t, s.URL)
	client := sqs.NewFromConfig(cfg)
	if _, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("reset-me")}); err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	if err := s.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	out, err := client.ListQueues(ctx, &sqs.ListQueuesInput{})
	if err != nil {
		t.Fatalf("ListQueues: %v", err)
	}
	if len(out.QueueUrls) != 0 {
		t.Errorf("queues after Reset = %v, want none", out.QueueUrls)
	}
}

// TestSQSMode: by default the Front answers SQS from the emulator and moto
// never sees a queue; SQSMoto passes SQS through to moto's own.
func TestSQSMode(t *testing.T) {
	t.Parallel()
	for mode, wantEmulator := range map[moto.SQSMode]bool{moto.SQSLocal: true, moto.SQSMoto: false} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			s := start(t, moto.Options{SQS: mode})
			if (s.SQS != nil) != wantEmulator {
				t.Fatalf("Server.SQS = %v, want an emulator: %v", s.SQS, wantEmulator)
			}
			ctx := t.Context()
			front := config(t, s.URL)
			backend := config(t, s.BackendURL)
			if _, err := sqs.NewFromConfig(front).CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("where")}); err != nil {
				t.Fatal(err)
			}
			out, err := sqs.NewFromConfig(backend).ListQueues(ctx, &sqs.ListQueuesInput{})
			if err != nil {
				t.Fatal(err)
			}
			if inMoto := len(out.QueueUrls) == 1; inMoto == wantEmulator {
				t.Errorf("moto's own SQS has %v; want the queue there: %v", out.QueueUrls, !wantEmulator)
			}
			if wantEmulator && s.SQS.Calls()["CreateQueue"] != 1 {
				t.Errorf("emulator calls %v, want one CreateQueue", s.SQS.Calls())
			}
			if got := s.Front.Calls()["AmazonSQS.CreateQueue"]; got != 1 {
				t.Errorf("Front counted %d CreateQueue, want 1 (%v)", got, s.Front.Calls())
			}
		})
	}
	if _, err := moto.Start(t.Context(), moto.Options{SQS: "elasticmq"}); err == nil || !strings.Contains(err.Error(), "elasticmq") {
		t.Errorf("Start with SQS elasticmq: %v, want an error naming it", err)
	}
}

// TestDynamoDBMode: by default the Front answers DynamoDB from the local
// DynamoDB and moto never sees a table; DynamoDBMoto passes DynamoDB through
// to moto's own, and MotoDynamoDBURL reaches moto's own in either mode.
func TestDynamoDBMode(t *testing.T) {
	t.Parallel()
	for mode, wantLocal := range map[moto.DynamoDBMode]bool{moto.DynamoDBLocal: true, moto.DynamoDBMoto: false} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			s := start(t, moto.Options{DynamoDB: mode})
			if (s.DynamoDB != nil) != wantLocal {
				t.Fatalf("Server.DynamoDB = %v, want the local one: %v", s.DynamoDB, wantLocal)
			}
			ctx := t.Context()
			tables := func(url string) []string {
				t.Helper()
				cfg := config(t, url)
				out, err := dynamodb.NewFromConfig(cfg).ListTables(ctx, &dynamodb.ListTablesInput{})
				if err != nil {
					t.Fatal(err)
				}
				return out.TableNames
			}
			_, err := dynamodb.NewFromConfig(config(t, s.URL)).CreateTable(ctx, &dynamodb.CreateTableInput{
				TableName:            aws.String("where"),
				AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("k"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
				KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("k"), KeyType: ddbtypes.KeyTypeHash}},
				BillingMode:          ddbtypes.BillingModePayPerRequest,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := tables(s.BackendURL); slices.Contains(got, "where") == wantLocal {
				t.Errorf("moto's own DynamoDB has %v; want the table there: %v", got, !wantLocal)
			}
			if got := tables(s.MotoDynamoDBURL); slices.Contains(got, "where") == wantLocal {
				t.Errorf("MotoDynamoDBURL lists %v; want moto's own tables", got)
			}
			if got := s.Front.Calls()["DynamoDB_20120810.CreateTable"]; got != 1 {
				t.Errorf("Front counted %d CreateTable, want 1 (%v)", got, s.Front.Calls())
			}
		})
	}
	if _, err := moto.Start(t.Context(), moto.Options{DynamoDB: "dynalite"}); err == nil || !strings.Contains(err.Error(), "dynalite") {
		t.Errorf("Start with DynamoDB dynalite: %v, want an error naming it", err)
	}
}

func TestStartErrors(t *testing.T) {
	t.Parallel()

	t.Run("missing binary", func(t *testing.T) {
		t.Parallel()
		_, err := moto.Start(t.Context(), moto.Options{Bin: "moto_server-that-is-not-installed"})
		if !errors.Is(err, moto.ErrNotInstalled) {
			t.Fatalf("err = %v, want ErrNotInstalled", err)
		}
		if !strings.Contains(err.Error(), `pip install "moto[server]"`) {
			t.Errorf("err = %q, want the install hint", err)
		}
	})

	t.Run("port taken", func(t *testing.T) {
		t.Parallel()
		localtest.Require(t, "moto_server", moto.InstallHint)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		port := l.Addr().(*net.TCPAddr).Port
		s, err := moto.Start(t.Context(), moto.Options{Port: port, StartTimeout: 20 * time.Second})
		if err == nil {
			_ = s.Stop()
			t.Fatalf("Start on taken port %d succeeded", port)
		}
		if !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), strconv.Itoa(port)) {
			t.Errorf("err = %v, want it to say moto exited on port %d", err, port)
		}
	})
}

func TestEnviron(t *testing.T) {
	t.Parallel()
	const url = "http://127.0.0.1:5000"
	base := []string{
		"PATH=/bin", "AWS_PROFILE=prod", "AWS_SESSION_TOKEN=tok", "AWS_ENDPOINT_URL_SQS=https://elsewhere",
		"AWS_REGION=eu-west-1", "AWS_CA_BUNDLE=/etc/ssl/ca.pem",
	}
	got := moto.Environ(url, base)
	want := append([]string{"PATH=/bin", "AWS_CA_BUNDLE=/etc/ssl/ca.pem"}, moto.Env(url)...)
	if !slices.Equal(got, want) {
		t.Errorf("Environ =\n%q\nwant\n%q", got, want)
	}
	for _, kv := range []string{
		"AWS_ENDPOINT_URL=" + url, "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
		"AWS_REGION=us-east-1", "AWS_DEFAULT_REGION=us-east-1",
	} {
		if !slices.Contains(moto.Env(url), kv) {
			t.Errorf("Env lacks %s", kv)
		}
	}
}

// BenchmarkStartStop measures a cold moto_server start (until it answers
// HTTP) plus its stop.
func BenchmarkStartStop(b *testing.B) {
	localtest.Require(b, "moto_server", moto.InstallHint)
	for b.Loop() {
		s, err := moto.Start(b.Context(), moto.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}
