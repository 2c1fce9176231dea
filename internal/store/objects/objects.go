// Package objects is the S3 side of item bodies (store.ObjectStore): the
// fetched documents and enrichments above the size threshold, one object
// each, named by store.ObjectKey (docs/design.md "Item state").
//
// It lives apart from internal/store so that the functions that never touch a
// body (redrive, scheduler, recovery) do not link the S3 client.
package objects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/triagehq/triage/internal/store"
)

// API is the part of the S3 client Bucket uses.
type API interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
}

// Bucket is one S3 bucket as a store.ObjectStore.
type Bucket struct {
	S3   API
	Name string
}

var _ store.ObjectStore = (*Bucket)(nil)

// Put stores body under key with one PutObject. The bucket's default
// encryption (SSE-S3) applies; objects are private (the bucket enforces
// owner ownership and blocks public access).
func (b *Bucket) Put(ctx context.Context, key string, body []byte, contentType string) error {
	_, err := b.S3.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(b.Name), Key: aws.String(key), Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String(contentType),
	})
	if err != nil {
		return fmt.Errorf("put s3://%s/%s: %w", b.Name, key, err)
	}
	return nil
}

// Get reads the object under key with one GetObject, at most limit+1 bytes
// (a longer object fails the caller's length check). A missing object
// (NoSuchKey, or 404 — the function's role lists the bucket so that S3
// answers 404 rather than 403) is store.ErrBodyGone.
func (b *Bucket) Get(ctx context.Context, key string, limit int) ([]byte, error) {
	out, err := b.S3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.Name), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return nil, fmt.Errorf("s3://%s/%s: %w", b.Name, key, store.ErrBodyGone)
		}
		return nil, fmt.Errorf("get s3://%s/%s: %w", b.Name, key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(io.LimitReader(out.Body, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read s3://%s/%s: %w", b.Name, key, err)
	}
	return data, nil
}

func isNotFound(err error) bool {
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return true
	}
	var nf *types.NotFound
	if errors.As(err, &nf) {
		return true
	}
	var api smithy.APIError
	return errors.As(err, &api) && (api.ErrorCode() == "NoSuchKey" || api.ErrorCode() == "NotFound")
}

// NewClient returns an S3 client for cfg. Against a local AWS (an endpoint
// set in cfg or in AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_S3) it addresses
// buckets by path, since "<bucket>.127.0.0.1" does not resolve; against AWS
// it keeps virtual-hosted addressing.
func NewClient(cfg aws.Config) *s3.Client {
	local := cfg.BaseEndpoint != nil || os.Getenv("AWS_ENDPOINT_URL") != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != ""
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = local
		if local {
			// moto's response checksums do not always match what the SDK
			// computes (it logs a warning on every read); AWS's do, and are
			// checked. Every body is checked against its hash either way.
			o.DisableLogOutputChecksumValidationSkipped = true
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	})
}

// Open returns the bucket called name, or a nil ObjectStore when name is
// empty (every body then goes to the Bodies table).
func Open(name string, cfg aws.Config) store.ObjectStore {
	if name == "" {
		return nil
	}
	return &Bucket{S3: NewClient(cfg), Name: name}
}
