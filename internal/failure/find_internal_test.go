package failure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"syscall"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/triagehq/triage/internal/work"
)

// asser delegates As to another error, like awshttp.ResponseError does.
type asser struct{ inner error }

func (a asser) Error() string        { return "asser" }
func (a asser) As(target any) bool   { return errors.As(a.inner, target) }
func (a asser) Unwrap() error        { return nil }
func (a asser) HTTPStatusCode() int  { return 0 }
func (a asser) ErrorMessage() string { return "" }

// TestFindMatchesErrorsAs: find is a drop-in for errors.As on every shape
// of chain the classifier meets.
func TestFindMatchesErrorsAs(t *testing.T) {
	t.Parallel()
	api := &smithy.GenericAPIError{Code: "ThrottlingException", Message: "slow down"}
	resp := &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 400}}, Err: api}}
	sdk := &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "PutItem", Err: resp}
	httpErr := &HTTPError{Provider: OpenAI, Status: 429}
	errs := map[string]error{
		"nil":             nil,
		"plain":           errors.New("x"),
		"sdk chain":       sdk,
		"wrapped sdk":     fmt.Errorf("save: %w", sdk),
		"http":            fmt.Errorf("llm: %w", httpErr),
		"joined":          errors.Join(errors.New("a"), fmt.Errorf("b: %w", httpErr), api),
		"multi %w":        fmt.Errorf("%w and %w", io.EOF, &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}),
		"as method":       asser{inner: api},
		"own around http": Wrap(work.RateLimited, httpErr, "r"),
		"panic":           Recovered(fmt.Errorf("boom: %w", context.Canceled)),
		"errno":           syscall.ECONNREFUSED,
	}
	for name, err := range errs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			findAgrees[*HTTPError](t, "*HTTPError", err)
			findAgrees[coder](t, "coder", err)
			findAgrees[statusCoder](t, "statusCoder", err)
			findAgrees[*smithy.OperationError](t, "*OperationError", err)
			findAgrees[syscall.Errno](t, "Errno", err)
			findAgrees[net.Error](t, "net.Error", err)
			findAgrees[runtime.Error](t, "runtime.Error", err)
			findAgrees[*Error](t, "*Error", err)
		})
	}
}

// findAgrees checks that find[T] answers err as errors.As does.
func findAgrees[T any](t *testing.T, what string, err error) {
	t.Helper()
	var want T
	wantOK := errors.As(err, &want)
	got, ok := find[T](err)
	if ok != wantOK || any(got) != any(want) {
		t.Errorf("%s: find = %v, %v; errors.As = %v, %v", what, got, ok, want, wantOK)
	}
}
