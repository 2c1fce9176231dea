package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrTooManyPages is wrapped by Scan when the table has more than maxPages
// pages.
var ErrTooManyPages = errors.New("too many pages")

// Scan calls fn with every item in's scan returns, page by page, reading at
// most maxPages pages. It stops at the first error, from DynamoDB or from
// fn, and returns it. in is not modified.
func Scan(ctx context.Context, db Scanner, in *dynamodb.ScanInput, maxPages int,
	fn func(map[string]types.AttributeValue) error) error {
	pages := dynamodb.NewScanPaginator(db, in)
	for range maxPages {
		if !pages.HasMorePages() {
			return nil
		}
		out, err := pages.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, it := range out.Items {
			if err := fn(it); err != nil {
				return err
			}
		}
	}
	if !pages.HasMorePages() {
		return nil
	}
	return fmt.Errorf("%w (more than %d)", ErrTooManyPages, maxPages)
}

// List scans every item of in, reading at most maxPages pages, converts
// each with decode and returns them sorted by cmp: what a store's List of a
// small table of shared records (breakers, model health, gates) does. It
// stops at the first error.
func ScanAll[T any](ctx context.Context, db Scanner, in *dynamodb.ScanInput, maxPages int,
	decode func(map[string]types.AttributeValue) (T, error), cmp func(a, b T) int) ([]T, error) {
	var out []T
	err := Scan(ctx, db, in, maxPages, func(av map[string]types.AttributeValue) error {
		v, err := decode(av)
		if err == nil {
			out = append(out, v)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, cmp)
	return out, nil
}

// Query reads in's query page by page, converting each item with decode,
// which leaves an item out by returning false. With limit > 0 it stops once
// it holds limit items (the last page is read whole) and returns the first
// limit: what an item's history (the error log's, the audit trail's) reads;
// otherwise it reads every page. A page's error is wrapped with what names
// the read; decode's is returned as it is.
func Query[T any](ctx context.Context, db Querier, in *dynamodb.QueryInput, limit int, what string,
	decode func(map[string]types.AttributeValue) (T, bool, error)) ([]T, error) {
	var out []T
	for pages := dynamodb.NewQueryPaginator(db, in); pages.HasMorePages() && (limit <= 0 || len(out) < limit); {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", what, err)
		}
		for _, av := range page.Items {
			v, keep, err := decode(av)
			if err != nil {
				return nil, err
			}
			if keep {
				out = append(out, v)
			}
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
