// Package secret resolves secret references — SSM parameters, Secrets
// Manager secrets and, for local runs, environment variables — to their
// values, caching each value for a TTL so that a warm Lambda does not call
// SSM for every record it processes.
//
// A reference names where a secret lives, never the secret itself, so it is
// safe to put in configuration, logs and error messages:
//
//	ssm:/triage/prod/openai-key          SSM GetParameter, decrypted
//	/triage/prod/openai-key              the same (a bare parameter path)
//	arn:aws:ssm:…:parameter/…            the same, by ARN
//	secretsmanager:triage/webhook        Secrets Manager GetSecretValue
//	arn:aws:secretsmanager:…:secret:…    the same, by ARN
//	env:TRIAGE_WEBHOOK_SECRET            os.Getenv, for local runs only
//
// Errors name the reference and keep the SDK error in their chain, so
// failure.Classify reads the AWS error code: a missing parameter
// (ParameterNotFound, ResourceNotFoundException) is an INTERNAL_BUG — a
// deployment defect — and AccessDeniedException is AUTH_DENIED. A reference
// that cannot be parsed is an INTERNAL_BUG too. Values never appear in
// errors.
package secret

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/triagehq/triage/internal/clock"
	"github.com/triagehq/triage/internal/failure"
	"github.com/triagehq/triage/internal/work"
)

// DefaultTTL is how long a resolved value is cached when Config.TTL is zero.
// Five minutes bounds both the SSM call rate of a warm Lambda and how long a
// rotated secret keeps being used.
const DefaultTTL = 5 * time.Minute

// SSMAPI is the part of the SSM client the Resolver uses.
type SSMAPI interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, optFns ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}

// SecretsManagerAPI is the part of the Secrets Manager client the Resolver
// uses.
type SecretsManagerAPI interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// Source is where a reference points.
type Source string

const (
	// SourceSSM is an SSM Parameter Store parameter, read with decryption.
	SourceSSM Source = "ssm"
	// SourceSecretsManager is a Secrets Manager secret's current version.
	SourceSecretsManager Source = "secretsmanager"
	// SourceEnv is an environment variable. It exists for local runs; a
	// deployed function reads secrets from SSM or Secrets Manager.
	SourceEnv Source = "env"
)

// Ref is a parsed secret reference.
type Ref struct {
	// Source is where the secret lives.
	Source Source
	// Name is the parameter path or ARN, the secret name or ARN, or the
	// environment variable's name.
	Name string
}

// String returns the reference in its canonical prefixed form, such as
// "ssm:/triage/prod/openai-key".
func (r Ref) String() string { return string(r.Source) + ":" + r.Name }

// ParseRef parses a reference (see the package documentation for the forms).
// Surrounding whitespace is ignored. An empty reference, an empty name or an
// unrecognised form is an INTERNAL_BUG: it is a deployment's configuration
// that is wrong, not the item.
func ParseRef(ref string) (Ref, error) {
	s := strings.TrimSpace(ref)
	var r Ref
	switch {
	case s == "":
		return Ref{}, failure.New(work.InternalBug, "empty secret reference")
	case strings.HasPrefix(s, "ssm:"):
		r = Ref{SourceSSM, strings.TrimPrefix(s, "ssm:")}
	case strings.HasPrefix(s, "secretsmanager:"):
		r = Ref{SourceSecretsManager, strings.TrimPrefix(s, "secretsmanager:")}
	case strings.HasPrefix(s, "env:"):
		r = Ref{SourceEnv, strings.TrimPrefix(s, "env:")}
	case strings.HasPrefix(s, "/"):
		r = Ref{SourceSSM, s}
	case strings.HasPrefix(s, "arn:"):
		// arn:partition:service:region:account:resource, in any partition.
		parts := strings.SplitN(s, ":", 6)
		if len(parts) < 6 {
			return Ref{}, failure.New(work.InternalBug, "secret reference %q is a malformed ARN", s)
		}
		switch parts[2] {
		case "ssm":
			r = Ref{SourceSSM, s}
		case "secretsmanager":
			r = Ref{SourceSecretsManager, s}
		default:
			return Ref{}, failure.New(work.InternalBug, "secret reference %q is an ARN of service %q (want ssm or secretsmanager)", s, parts[2])
		}
	default:
		return Ref{}, failure.New(work.InternalBug,
			"secret reference %q has no known form (want ssm:/path, /path, secretsmanager:name, an ARN or env:NAME)", s)
	}
	if strings.TrimSpace(r.Name) == "" {
		return Ref{}, failure.New(work.InternalBug, "secret reference %q has an empty name", s)
	}
	return r, nil
}

// Config configures a Resolver. Every field is optional; a reference whose
// client is missing fails with INTERNAL_BUG when it is resolved.
type Config struct {
	// SSM reads ssm: references.
	SSM SSMAPI
	// SecretsManager reads secretsmanager: references.
	SecretsManager SecretsManagerAPI
	// TTL is how long a value is cached. Zero means DefaultTTL; a negative
	// TTL disables caching (every Resolve calls the service).
	TTL time.Duration
	// Clock expires cached values; nil means the system clock.
	Clock clock.Clock
	// Getenv reads env: references; nil means os.Getenv.
	Getenv func(string) string
}

// Resolver resolves secret references, caching values for a TTL. Failures
// are never cached, so a fixed permission or a newly created parameter takes
// effect on the next call. Concurrent misses for the same reference share
// one service call. A Resolver is safe for concurrent use; build one per
// process, in main.
type Resolver struct {
	ssm    SSMAPI
	sm     SecretsManagerAPI
	ttl    time.Duration
	clock  clock.Clock
	getenv func(string) string

	mu       sync.Mutex
	cache    map[Ref]entry
	inflight map[Ref]*call

	// onWait, when set by tests, runs each time a caller joins another
	// caller's in-flight fetch.
	onWait func(Ref)
}

type entry struct {
	value   string
	expires time.Time
}

// call is one in-flight fetch; done is closed once value and err are set.
type call struct {
	done  chan struct{}
	value string
	err   error
}

// NewResolver returns a Resolver with cfg's defaults applied.
func NewResolver(cfg Config) *Resolver {
	r := &Resolver{
		ssm:      cfg.SSM,
		sm:       cfg.SecretsManager,
		ttl:      cfg.TTL,
		clock:    cfg.Clock,
		getenv:   cfg.Getenv,
		cache:    map[Ref]entry{},
		inflight: map[Ref]*call{},
	}
	if r.ttl == 0 {
		r.ttl = DefaultTTL
	}
	r.clock = clock.Or(r.clock)
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	return r
}

// Resolve returns the value ref points to, from the cache while it is fresh.
// env: references are read on every call and never cached. An empty value is
// an error (INTERNAL_BUG): a secret that resolves to nothing is a deployment
// defect, and sending it on would only fail later and less clearly.
//
// When another caller is already fetching ref, Resolve waits for that fetch
// (or for ctx) instead of making its own call; if that fetch was cut short by
// its caller's context while ctx is still live, Resolve fetches again.
func (r *Resolver) Resolve(ctx context.Context, ref string) (string, error) {
	parsed, err := ParseRef(ref)
	if err != nil {
		return "", err
	}
	if parsed.Source == SourceEnv {
		return r.fromEnv(parsed)
	}
	for {
		r.mu.Lock()
		if e, ok := r.cache[parsed]; ok && r.clock.Now().Before(e.expires) {
			r.mu.Unlock()
			return e.value, nil
		}
		if c, ok := r.inflight[parsed]; ok {
			hook := r.onWait
			r.mu.Unlock()
			if hook != nil {
				hook(parsed)
			}
			select {
			case <-c.done:
			case <-ctx.Done():
				return "", fmt.Errorf("resolve secret %s: %w", parsed, ctx.Err())
			}
			if c.err != nil && isContextErr(c.err) && ctx.Err() == nil {
				continue // the fetching caller gave up; this one has not
			}
			return c.value, c.err
		}
		c := &call{done: make(chan struct{})}
		r.inflight[parsed] = c
		r.mu.Unlock()

		c.value, c.err = r.fetch(ctx, parsed)

		r.mu.Lock()
		delete(r.inflight, parsed)
		if c.err == nil && r.ttl > 0 {
			r.cache[parsed] = entry{value: c.value, expires: r.clock.Now().Add(r.ttl)}
		}
		r.mu.Unlock()
		close(c.done)
		return c.value, c.err
	}
}

// Bytes is Resolve returning the value as a new byte slice, for signing keys.
func (r *Resolver) Bytes(ctx context.Context, ref string) ([]byte, error) {
	v, err := r.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	return []byte(v), nil
}

// BytesFunc binds ref, returning a function of the shape the notify stage
// takes for its signing secret.
func (r *Resolver) BytesFunc(ref string) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) { return r.Bytes(ctx, ref) }
}

// Forget drops ref's cached value, so the next Resolve fetches it again (for
// example after the upstream rejected the key as invalid). An unparseable
// reference is ignored.
func (r *Resolver) Forget(ref string) {
	parsed, err := ParseRef(ref)
	if err != nil {
		return
	}
	r.mu.Lock()
	delete(r.cache, parsed)
	r.mu.Unlock()
}

func (r *Resolver) fromEnv(ref Ref) (string, error) {
	v := r.getenv(ref.Name)
	if v == "" {
		return "", failure.New(work.InternalBug, "resolve secret %s: environment variable is unset or empty", ref)
	}
	return v, nil
}

// fetch calls the service ref points to. Errors carry the reference (never
// the value) and keep the SDK error in the chain for classification.
func (r *Resolver) fetch(ctx context.Context, ref Ref) (string, error) {
	var (
		value *string
		err   error
	)
	switch ref.Source {
	case SourceSSM:
		if r.ssm == nil {
			return "", failure.New(work.InternalBug, "resolve secret %s: no SSM client configured", ref)
		}
		var out *ssm.GetParameterOutput
		out, err = r.ssm.GetParameter(ctx, &ssm.GetParameterInput{
			Name:           aws.String(ref.Name),
			WithDecryption: aws.Bool(true),
		})
		if err == nil && out != nil && out.Parameter != nil {
			value = out.Parameter.Value
		}
	case SourceSecretsManager:
		if r.sm == nil {
			return "", failure.New(work.InternalBug, "resolve secret %s: no Secrets Manager client configured", ref)
		}
		var out *secretsmanager.GetSecretValueOutput
		out, err = r.sm.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(ref.Name)})
		if err == nil && out != nil {
			value = out.SecretString
			if value == nil && len(out.SecretBinary) > 0 {
				value = aws.String(string(out.SecretBinary))
			}
		}
	default:
		return "", failure.New(work.InternalBug, "resolve secret %s: unsupported source", ref)
	}
	if err != nil {
		return "", failure.WithDetail(fmt.Errorf("resolve secret %s: %w", ref, err), "secret_ref", ref.String())
	}
	if value == nil || *value == "" {
		return "", failure.New(work.InternalBug, "resolve secret %s: the service returned an empty value", ref)
	}
	return *value, nil
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
