package telemetry

import (
	"context"
	"io"
	"log/slog"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

type attrsKey struct{}

// WithAttrs returns ctx carrying log attributes (slog key-value pairs or
// slog.Attr values) that a ContextHandler adds to every record logged with
// ctx (InfoContext and friends). A key already carried is replaced, so
// nested layers (a breaker Guard around the model chain) may both set
// item_id without duplicating it.
func WithAttrs(ctx context.Context, args ...any) context.Context {
	add := slog.Group("", args...).Value.Group()
	prev, _ := ctx.Value(attrsKey{}).([]slog.Attr)
	out := make([]slog.Attr, 0, len(prev)+len(add))
	for _, a := range prev {
		replaced := false
		for _, b := range add {
			if a.Key == b.Key {
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, a)
		}
	}
	return context.WithValue(ctx, attrsKey{}, append(out, add...))
}

// Attrs returns the attributes WithAttrs put on ctx.
func Attrs(ctx context.Context) []slog.Attr {
	a, _ := ctx.Value(attrsKey{}).([]slog.Attr)
	return a
}

// ContextHandler adds to each record logged with a context the attributes
// WithAttrs put on it and, when the context is a Lambda invocation's, its
// request_id. Use it for process-wide loggers that libraries (breaker,
// health, fallback) log through, so their lines carry the item, correlation
// and request ids of the call they were made for; a logger that already has
// request_id attached with With would show it twice.
type ContextHandler struct {
	slog.Handler
}

// Handle adds the context's attributes and passes the record on.
func (h ContextHandler) Handle(ctx context.Context, r slog.Record) error {
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		r.AddAttrs(slog.String("request_id", lc.AwsRequestID))
	}
	if a := Attrs(ctx); len(a) > 0 {
		r.AddAttrs(a...)
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs keeps the wrapper.
func (h ContextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return ContextHandler{h.Handler.WithAttrs(attrs)}
}

// WithGroup keeps the wrapper.
func (h ContextHandler) WithGroup(name string) slog.Handler {
	return ContextHandler{h.Handler.WithGroup(name)}
}

// NewContextLogger is NewLogger with a ContextHandler: JSON lines at level,
// plus each context's attributes.
func NewContextLogger(w io.Writer, level string) *slog.Logger {
	return slog.New(ContextHandler{NewLogger(w, level).Handler()})
}
